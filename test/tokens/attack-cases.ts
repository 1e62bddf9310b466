import { constants, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
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

const attacker = testKey('RS256', 'attacker');

// The header and claims of a valid token, with `changes` on top (undefined removes a member).
function merged(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete result[name];
  return result;
}

function signedBy(key: TestKey | { alg: string; kid?: string; privateKey: KeyObject | Buffer }, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  return signJws(merged({ alg: key.alg, typ: 'at+jwt', ...('kid' in key && key.kid !== undefined ? { kid: key.kid } : {}) }, header), claims, key.privateKey);
}

// The last character of a signature segment with an unused trailing bit set: the same bytes, another spelling.
function respelledSignature(token: string): string {
  const last = token.at(-1) ?? 'A';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return `${token.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`;
}

function pssWithSalt(key: TestKey, claims: Record<string, unknown>, saltLength: number): string {
  const input = `${b64url(JSON.stringify({ alg: 'PS256', typ: 'at+jwt', kid: key.kid }))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }))}`;
}

function derSignedEs256(key: TestKey, claims: Record<string, unknown>): string {
  const input = `${b64url(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: key.kid }))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), key.privateKey))}`;
}

/** Valid tokens first, then every attack of the contract and a few more, each with its expected verdict. */
export function attackCases(setup: CaseSetup): TokenCase[] {
  const { keys, now } = setup;
  const claims = { iss: setup.issuer, aud: setup.audience, sub: 'user-7', client_id: 'spa', exp: now + 300, iat: now, scope: 'read' };
  const valid = (changes: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key: TestKey = keys.rsa): string => signedBy(key, merged(claims, changes), header);
  const good = valid();
  const [goodHeader, , goodSignature] = good.split('.');
  const es256 = valid({}, {}, keys.ec);
  const publicPem = createPublicKey(keys.rsa.privateKey).export({ format: 'pem', type: 'spki' });
  const attackerJwk = attacker.publicJwk;
  return [
    { name: 'RS256, valid', token: good, expect: 'accept', scopes: [Scope.read] },
    { name: 'PS256, valid (the same RSA key)', token: valid({}, { alg: 'PS256' }, { ...keys.rsa, alg: 'PS256' }), expect: 'accept' },
    { name: 'ES256, valid', token: es256, expect: 'accept' },
    { name: 'PS256 with a salt of 0 bytes, not 32', token: pssWithSalt(keys.rsa, claims, 0), expect: 'invalid' },
    { name: 'EdDSA (Ed25519), valid', token: valid({}, {}, keys.ed), expect: 'accept' },
    { name: 'EdDSA without kid: the one key that fits', token: valid({}, { kid: undefined }, keys.ed), expect: 'accept' },
    { name: 'typ JWT (Keycloak, Entra ID)', token: valid({}, { typ: 'JWT' }), expect: 'accept' },
    { name: 'typ application/at+jwt', token: valid({}, { typ: 'application/at+jwt' }), expect: 'accept' },
    { name: 'no typ', token: valid({}, { typ: undefined }), expect: 'accept' },
    { name: 'aud an array holding the audience', token: valid({ aud: ['other-api', setup.audience] }), expect: 'accept' },
    { name: 'scp as an array', token: valid({ scope: undefined, scp: ['read', 'write'] }), expect: 'accept', scopes: [Scope.read, Scope.write] },
    { name: 'scp as a string', token: valid({ scope: undefined, scp: 'read admin' }), expect: 'accept', scopes: [Scope.read, Scope.admin] },
    { name: 'unknown scope names ignored', token: valid({ scope: 'openid billing:read write' }), expect: 'accept', scopes: [Scope.write] },
    { name: 'exp 30 s ago (within skew)', token: valid({ exp: now - 30 }), expect: 'accept' },
    { name: 'nbf 30 s ahead (within skew)', token: valid({ nbf: now + 30 }), expect: 'accept' },
    { name: 'alg none', token: signJws({ alg: 'none', typ: 'at+jwt' }, claims, Buffer.alloc(0)), expect: 'invalid' },
    { name: 'alg none naming a real kid', token: signJws({ alg: 'none', kid: 'rsa' }, claims, Buffer.alloc(0)), expect: 'invalid' },
    { name: 'HS256 with the public key as the secret', token: signJws({ alg: 'HS256', kid: 'rsa' }, claims, Buffer.from(publicPem)), expect: 'invalid' },
    { name: 'its own key in jwk', token: signedBy(attacker, claims, { kid: undefined, jwk: attackerJwk }), expect: 'invalid' },
    { name: 'its own key at jku', token: signedBy(attacker, claims, { jku: 'https://attacker.example/jwks' }), expect: 'invalid' },
    { name: 'its own key at x5u', token: signedBy(attacker, claims, { x5u: 'https://attacker.example/cert.pem' }), expect: 'invalid' },
    { name: 'its own certificate in x5c', token: signedBy(attacker, claims, { x5c: [b64url('not a certificate')] }), expect: 'invalid' },
    {
      name: 'signed by the issuer, with a jwk header too',
      token: valid({}, { jwk: keys.rsa.publicJwk }),
      expect: 'invalid',
      joseDiffers: 'jose ignores jwk and verifies with the JWKS key; the service refuses any token that offers its own key',
    },
    { name: 'unknown kid', token: signedBy({ ...attacker, kid: 'rotated-away' }, claims), expect: 'unknown' },
    { name: 'wrong issuer', token: valid({ iss: 'https://evil.example.com/realms/acme' }), expect: 'invalid' },
    { name: 'issuer with a trailing slash added', token: valid({ iss: `${setup.issuer}/` }), expect: 'invalid' },
    { name: 'no iss', token: valid({ iss: undefined }), expect: 'invalid' },
    { name: 'wrong audience', token: valid({ aud: 'other-api' }), expect: 'invalid' },
    { name: 'aud array without the audience', token: valid({ aud: ['other-api', 'account'] }), expect: 'invalid' },
    { name: 'expired 120 s ago (beyond skew)', token: valid({ exp: now - 120 }), expect: 'expired' },
    { name: 'nbf 120 s ahead (beyond skew)', token: valid({ nbf: now + 120 }), expect: 'invalid' },
    { name: 'tampered payload', token: `${goodHeader}.${b64url(JSON.stringify({ ...claims, scope: 'admin' }))}.${goodSignature}`, expect: 'invalid' },
    { name: 'truncated signature (its first half)', token: `${good.slice(0, good.lastIndexOf('.'))}.${b64url(Buffer.from(goodSignature ?? '', 'base64url').subarray(0, 128))}`, expect: 'invalid' },
    { name: 'signature cut off', token: `${good.slice(0, good.lastIndexOf('.'))}.`, expect: 'invalid' },
    { name: 'header not base64url (+ and /)', token: `${(goodHeader ?? '').replace(/.$/, '+')}${good.slice(goodHeader?.length ?? 0)}`, expect: 'malformed' },
    { name: 'four segments', token: `${good}.xyz`, expect: 'malformed' },
    { name: 'header not JSON', token: `${b64url('{"alg":"RS256"')}.${good.split('.')[1]}.${goodSignature}`, expect: 'malformed' },
    {
      name: 'signature padded with =',
      token: `${es256}==`,
      expect: 'malformed',
      joseDiffers: 'jose (atob) accepts padding; the service reads base64url strictly (RFC 7515 §2), one spelling per signature',
    },
    {
      name: 'signature with a nonzero unused trailing bit',
      token: respelledSignature(es256),
      expect: 'malformed',
      joseDiffers: 'jose decodes the same bytes and accepts; the service refuses a second spelling of the same signature',
    },
    { name: 'ES256 signature in DER, not r‖s', token: derSignedEs256(keys.ec, claims), expect: 'invalid' },
    { name: 'ES256 naming an RSA key', token: signedBy({ ...keys.ec, kid: 'rsa' }, claims), expect: 'invalid' },
    { name: 'RS256 naming an EC key', token: signedBy({ ...keys.rsa, kid: 'ec' }, claims), expect: 'invalid' },
    { name: 'RSA key of 1024 bits', token: valid({}, {}, keys.rsaSmall), expect: 'invalid' },
    { name: 'key with use enc', token: valid({}, {}, keys.rsaForEncryption), expect: 'invalid' },
    { name: 'PS256 with a key whose alg is RS256', token: signedBy({ ...keys.rsaForRs256Only, alg: 'PS256' }, claims), expect: 'invalid' },
    { name: 'key whose key_ops lack verify', token: valid({}, {}, keys.ecSignOnly), expect: 'invalid' },
    { name: 'RS256 without kid, several RSA keys fit', token: valid({}, { kid: undefined }), expect: 'invalid' },
    { name: 'crit naming an unknown extension', token: valid({}, { crit: ['urn:example:ext'], 'urn:example:ext': true }), expect: 'invalid' },
    { name: 'crit empty', token: valid({}, { crit: [] }), expect: 'invalid' },
    {
      name: 'crit b64 with b64 true',
      token: valid({}, { crit: ['b64'], b64: true }),
      expect: 'invalid',
      joseDiffers: 'jose understands b64; the service understands no extension, and a JWT never needs one (RFC 7797 §7)',
    },
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
    {
      name: 'typ dpop+jwt (not an access token)',
      token: valid({}, { typ: 'dpop+jwt' }),
      expect: 'invalid',
      joseDiffers: 'jose checks typ only when told one value; the service takes at+jwt, JWT or none, and nothing else',
    },
    { name: 'payload a JSON array', token: signJws({ alg: 'RS256', kid: 'rsa' }, '[1]', keys.rsa.privateKey), expect: 'malformed' },
    {
      name: 'longer than 8192 characters',
      token: valid({ padding: 'x'.repeat(8192) }),
      expect: 'malformed',
      joseDiffers: 'jose has no size limit; the service reads at most 8192 characters',
    },
    { name: 'HS256 with an HMAC secret', token: signJws({ alg: 'HS256' }, claims, generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' })), expect: 'invalid' },
  ];
}
