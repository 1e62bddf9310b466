import { constants, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { RefusalReason } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { b64url, signJws, type TestKey, testKey } from '../support/jws-signer.ts';

/** One token of the agreement test, and what the service must conclude. */
export interface TokenCase {
  readonly name: string;
  readonly token: string;
  /** `accept`, or the refusal reason the service must give. */
  readonly expect: 'accept' | RefusalReason;
  /** The scopes an accepted token must grant, when the case is about them. */
  readonly scopes?: readonly Scope[];
  /** Why jose reaches the other verdict, for the cases where the service chose differently. */
  readonly joseDiffers?: string;
}

/** The issuer's keys (their public halves form its JWKS), and the claims every valid token carries. */
export interface CaseSetup {
  readonly issuer: string;
  readonly audience: string;
  readonly now: number;
  readonly keys: Readonly<Record<'rsa' | 'ec' | 'ed' | 'rsaSmall' | 'rsaForEncryption' | 'rsaForRs256Only' | 'ecSignOnly', TestKey>>;
}

type Members = Record<string, unknown>;
type Signer = Pick<TestKey, 'alg' | 'privateKey'> & { readonly kid?: string };

/** What every group of cases builds on: the setup, a valid token's claims, and ways to sign variations of it. */
interface Kit extends CaseSetup {
  readonly claims: Members;
  /** A token of the issuer's `key` (RSA by default) with `changes` to the claims and header (undefined removes). */
  valid(changes?: Members, header?: Members, key?: TestKey): string;
  /** A token signed by `key` (anyone's), with the valid claims and `header` changes. */
  signedBy(key: Signer, header?: Members): string;
}

const attacker = testKey('RS256', 'attacker');

function merged(base: Members, changes: Members): Members {
  const result: Members = { ...base, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete result[name];
  return result;
}

function kitFor(setup: CaseSetup): Kit {
  const claims = { iss: setup.issuer, aud: setup.audience, sub: 'user-7', client_id: 'spa', exp: setup.now + 300, iat: setup.now, scope: 'read' };
  const sign = (key: Signer, payload: Members, header: Members): string =>
    signJws(merged({ alg: key.alg, typ: 'at+jwt', ...(key.kid === undefined ? {} : { kid: key.kid }) }, header), payload, key.privateKey);
  return {
    ...setup,
    claims,
    valid: (changes = {}, header = {}, key = setup.keys.rsa) => sign(key, merged(claims, changes), header),
    signedBy: (key, header = {}) => sign(key, claims, header),
  };
}

// A compact JWS whose signature `signature` makes over its input: for signatures no library would make.
function withSignature(header: Members, claims: Members, signature: (input: Buffer) => Buffer): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(signature(Buffer.from(input)))}`;
}

// The last character of a signature with an unused trailing bit set: the same bytes, another spelling.
function respelled(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return `${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1) ?? 'A') + 1]}`;
}

// P-256's group order n: an ECDSA signature (r, s) verifies as (r, n − s) too.
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

// The ES256 token with its s in the lower or upper half of the group: the issuer's own signature,
// spelled the other way when its s lies in the other half.
function withS(token: string, half: 'lower' | 'upper'): string {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const wanted = s > P256_ORDER / 2n === (half === 'upper') ? s : P256_ORDER - s;
  return `${header}.${payload}.${b64url(Buffer.concat([bytes.subarray(0, 32), Buffer.from(wanted.toString(16).padStart(64, '0'), 'hex')]))}`;
}

// A token whose header and payload are exactly these texts, signed (RS256) by `key`.
function signedText(header: string, payload: string, key: TestKey): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), key.privateKey))}`;
}

function validTokens({ keys, now, audience, valid }: Kit): TokenCase[] {
  return [
    { name: 'RS256, valid', token: valid(), expect: 'accept', scopes: [Scope.read] },
    { name: 'PS256, valid (the same RSA key)', token: valid({}, {}, { ...keys.rsa, alg: 'PS256' }), expect: 'accept' },
    { name: 'ES256, valid', token: valid({}, {}, keys.ec), expect: 'accept' },
    { name: 'EdDSA (Ed25519), valid', token: valid({}, {}, keys.ed), expect: 'accept' },
    { name: 'EdDSA without kid: the one key that fits', token: valid({}, { kid: undefined }, keys.ed), expect: 'accept' },
    { name: 'typ JWT (Keycloak, Entra ID)', token: valid({}, { typ: 'JWT' }), expect: 'accept' },
    { name: 'typ application/at+jwt', token: valid({}, { typ: 'application/at+jwt' }), expect: 'accept' },
    { name: 'no typ', token: valid({}, { typ: undefined }), expect: 'accept' },
    { name: 'aud an array holding the audience', token: valid({ aud: ['other-api', audience] }), expect: 'accept' },
    { name: 'scp as an array', token: valid({ scope: undefined, scp: ['read', 'write'] }), expect: 'accept', scopes: [Scope.read, Scope.write] },
    { name: 'scp as a string', token: valid({ scope: undefined, scp: 'read admin' }), expect: 'accept', scopes: [Scope.read, Scope.admin] },
    { name: 'unknown scope names ignored', token: valid({ scope: 'openid billing:read write' }), expect: 'accept', scopes: [Scope.write] },
    { name: 'exp 30 s ago (within skew)', token: valid({ exp: now - 30 }), expect: 'accept' },
    { name: 'nbf 30 s ahead (within skew)', token: valid({ nbf: now + 30 }), expect: 'accept' },
  ];
}

function algorithmAttacks({ keys, claims }: Kit): TokenCase[] {
  const publicPem = createPublicKey(keys.rsa.privateKey).export({ format: 'pem', type: 'spki' });
  const someSecret = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  const pss = (saltLength: number) => (input: Buffer) => sign('sha256', input, { key: keys.rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength });
  return [
    { name: 'alg none', token: signJws({ alg: 'none', typ: 'at+jwt' }, claims, Buffer.alloc(0)), expect: 'invalid' },
    { name: 'alg none naming a real kid', token: signJws({ alg: 'none', kid: 'rsa' }, claims, Buffer.alloc(0)), expect: 'invalid' },
    { name: 'HS256 with the public key as the secret', token: signJws({ alg: 'HS256', kid: 'rsa' }, claims, Buffer.from(publicPem)), expect: 'invalid' },
    { name: 'HS256 with an HMAC secret', token: signJws({ alg: 'HS256' }, claims, someSecret), expect: 'invalid' },
    { name: 'PS256 with a salt of 0 bytes, not 32', token: withSignature({ alg: 'PS256', kid: 'rsa' }, claims, pss(0)), expect: 'invalid' },
    { name: 'ES256 signature in DER, not r‖s', token: withSignature({ alg: 'ES256', kid: 'ec' }, claims, (input) => sign('sha256', input, keys.ec.privateKey)), expect: 'invalid' },
  ];
}

function keyAttacks({ keys, valid, signedBy }: Kit): TokenCase[] {
  return [
    { name: 'its own key in jwk', token: signedBy(attacker, { kid: undefined, jwk: attacker.publicJwk }), expect: 'invalid' },
    { name: 'its own key at jku', token: signedBy(attacker, { jku: 'https://attacker.example/jwks' }), expect: 'invalid' },
    { name: 'its own key at x5u', token: signedBy(attacker, { x5u: 'https://attacker.example/cert.pem' }), expect: 'invalid' },
    { name: 'its own certificate in x5c', token: signedBy(attacker, { x5c: [b64url('not a certificate')] }), expect: 'invalid' },
    {
      name: 'signed by the issuer, with a jwk header too',
      token: valid({}, { jwk: keys.rsa.publicJwk }),
      expect: 'invalid',
      joseDiffers: 'jose ignores jwk and verifies with the JWKS key; the service refuses any token that offers its own key',
    },
    { name: 'unknown kid', token: signedBy({ ...attacker, kid: 'rotated-away' }), expect: 'unknown' },
    { name: 'ES256 naming an RSA key', token: signedBy({ ...keys.ec, kid: 'rsa' }), expect: 'invalid' },
    { name: 'RS256 naming an EC key', token: signedBy({ ...keys.rsa, kid: 'ec' }), expect: 'invalid' },
    { name: 'RSA key of 1024 bits', token: valid({}, {}, keys.rsaSmall), expect: 'invalid' },
    { name: 'key with use enc', token: valid({}, {}, keys.rsaForEncryption), expect: 'invalid' },
    { name: 'PS256 with a key whose alg is RS256', token: signedBy({ ...keys.rsaForRs256Only, alg: 'PS256' }), expect: 'invalid' },
    { name: 'key whose key_ops lack verify', token: valid({}, {}, keys.ecSignOnly), expect: 'invalid' },
    { name: 'RS256 without kid, several RSA keys fit', token: valid({}, { kid: undefined }), expect: 'invalid' },
  ];
}

function headerAttacks({ valid }: Kit): TokenCase[] {
  return [
    { name: 'crit naming an unknown extension', token: valid({}, { crit: ['urn:example:ext'], 'urn:example:ext': true }), expect: 'invalid' },
    { name: 'crit empty', token: valid({}, { crit: [] }), expect: 'invalid' },
    {
      name: 'crit b64 with b64 true',
      token: valid({}, { crit: ['b64'], b64: true }),
      expect: 'invalid',
      joseDiffers: 'jose understands b64; the service understands no extension, and a JWT never needs one (RFC 7797 §7)',
    },
    {
      name: 'typ dpop+jwt (not an access token)',
      token: valid({}, { typ: 'dpop+jwt' }),
      expect: 'invalid',
      joseDiffers: 'jose checks typ only when told one value; the service takes at+jwt, JWT or none, and nothing else',
    },
  ];
}

function claimAttacks({ issuer, now, valid }: Kit): TokenCase[] {
  return [
    { name: 'wrong issuer', token: valid({ iss: 'https://evil.example.com/realms/acme' }), expect: 'invalid' },
    { name: 'issuer with a trailing slash added', token: valid({ iss: `${issuer}/` }), expect: 'invalid' },
    { name: 'no iss', token: valid({ iss: undefined }), expect: 'invalid' },
    { name: 'wrong audience', token: valid({ aud: 'other-api' }), expect: 'invalid' },
    { name: 'aud array without the audience', token: valid({ aud: ['other-api', 'account'] }), expect: 'invalid' },
    { name: 'expired 120 s ago (beyond skew)', token: valid({ exp: now - 120 }), expect: 'expired' },
    { name: 'nbf 120 s ahead (beyond skew)', token: valid({ nbf: now + 120 }), expect: 'invalid' },
    { name: 'no sub', token: valid({ sub: undefined }), expect: 'invalid' },
    { name: 'no exp', token: valid({ exp: undefined }), expect: 'invalid' },
    { name: 'exp a string', token: valid({ exp: String(now + 300) }), expect: 'invalid' },
    { name: 'iat not a number', token: valid({ iat: 'today' }), expect: 'invalid' },
    {
      name: 'sub a number',
      token: valid({ sub: 42 }),
      expect: 'invalid',
      joseDiffers: 'jose checks only that sub is present; the service needs a non-empty string, since sub names the caller',
    },
  ];
}

function encodingAttacks({ keys, claims, valid }: Kit): TokenCase[] {
  const good = valid();
  const [header = '', payload = '', signature = ''] = good.split('.');
  const es256 = valid({}, {}, keys.ec);
  return [
    { name: 'tampered payload', token: `${header}.${b64url(JSON.stringify({ ...claims, scope: 'admin' }))}.${signature}`, expect: 'invalid' },
    { name: 'truncated signature (its first half)', token: `${header}.${payload}.${b64url(Buffer.from(signature, 'base64url').subarray(0, 128))}`, expect: 'invalid' },
    { name: 'signature cut off', token: `${header}.${payload}.`, expect: 'invalid' },
    { name: 'header not base64url (a +)', token: `${header.slice(0, -1)}+.${payload}.${signature}`, expect: 'malformed' },
    { name: 'four segments', token: `${good}.xyz`, expect: 'malformed' },
    { name: 'header not JSON', token: `${b64url('{"alg":"RS256"')}.${payload}.${signature}`, expect: 'malformed' },
    { name: 'payload a JSON array', token: signJws({ alg: 'RS256', kid: 'rsa' }, '[1]', keys.rsa.privateKey), expect: 'malformed' },
    {
      name: 'signature padded with =',
      token: `${es256}==`,
      expect: 'malformed',
      joseDiffers: 'jose (atob) accepts padding; the service reads base64url strictly (RFC 7515 §2), one spelling per signature',
    },
    {
      name: 'signature with a nonzero unused trailing bit',
      token: respelled(es256),
      expect: 'malformed',
      joseDiffers: 'jose decodes the same bytes and accepts; the service refuses a second spelling of the same signature',
    },
    {
      name: 'longer than 8192 characters',
      token: valid({ padding: 'x'.repeat(8192) }),
      expect: 'malformed',
      joseDiffers: 'jose has no size limit; the service reads at most 8192 characters',
    },
    // Issuers' ECDSA (OpenSSL, Java, Go) puts s in either half, each about half the time: refusing the
    // upper half would refuse half of an honest issuer's tokens, so both spellings are accepted.
    { name: "ES256, the issuer's signature with s in the lower half", token: withS(es256, 'lower'), expect: 'accept' },
    { name: 'ES256, the same signature as (r, n − s): s in the upper half', token: withS(es256, 'upper'), expect: 'accept' },
    {
      name: 'a header starting with a byte-order mark, signed by the issuer',
      token: signedText(`\uFEFF${JSON.stringify({ alg: 'RS256', kid: 'rsa', typ: 'at+jwt' })}`, JSON.stringify(claims), keys.rsa),
      expect: 'malformed',
      joseDiffers: "jose's TextDecoder drops a leading byte-order mark; the service reads the bytes as sent, and JSON has no BOM",
    },
    {
      name: 'a payload starting with a byte-order mark, signed by the issuer',
      token: signedText(JSON.stringify({ alg: 'RS256', kid: 'rsa', typ: 'at+jwt' }), `\uFEFF${JSON.stringify(claims)}`, keys.rsa),
      expect: 'malformed',
      joseDiffers: "jose's TextDecoder drops a leading byte-order mark; the service reads the bytes as sent, and JSON has no BOM",
    },
  ];
}

/** Valid tokens first, then every attack of the contract and a few more, each with its expected verdict. */
export function attackCases(setup: CaseSetup): TokenCase[] {
  const kit = kitFor(setup);
  return [validTokens, algorithmAttacks, keyAttacks, headerAttacks, claimAttacks, encodingAttacks].flatMap((group) => group(kit));
}
