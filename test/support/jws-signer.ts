import { constants, createHmac, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';

/** The algorithms the service accepts, and the test keys are made for. */
export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

/** A signing key of a test issuer: the private half signs, the public JWK goes in the JWKS. */
export interface TestKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: KeyObject;
  /** The public JWK with `kid` (and whatever `extra` members were asked for). */
  readonly publicJwk: JsonWebKey;
  /** The private JWK with `kid`, as an identity provider's configuration takes it. */
  readonly privateJwk: JsonWebKey;
}

/** A fresh key pair for `alg` (RS256/PS256: RSA of `rsaBits`; ES256: P-256; EdDSA: Ed25519). */
export function testKey(alg: SigningAlgorithm, kid: string, extra: JsonWebKey = {}, rsaBits = 2048): TestKey {
  const { privateKey, publicKey } =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: rsaBits });
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, ...extra },
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid },
  };
}

/** base64url without padding, as JWS writes it. */
export function b64url(value: Buffer | string): string {
  return Buffer.from(value).toString('base64url');
}

function signature(alg: unknown, input: Buffer, key: KeyObject | Buffer): Buffer {
  if (alg === 'none') return Buffer.alloc(0);
  if (Buffer.isBuffer(key)) return createHmac('sha256', key).update(input).digest();
  if (alg === 'RS256') return sign('sha256', input, key);
  if (alg === 'PS256') return sign('sha256', input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  if (alg === 'ES256') return sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
  return sign(null, input, key);
}

/**
 * A compact JWS of `header` and `payload` (an object, or payload text as it is) signed with `key`
 * (a private key, or HMAC bytes): hand-made, so an attack token can say anything its attacker wants.
 */
export function signJws(header: Record<string, unknown>, payload: Record<string, unknown> | string, key: KeyObject | Buffer): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(typeof payload === 'string' ? payload : JSON.stringify(payload))}`;
  return `${input}.${b64url(signature(header['alg'], Buffer.from(input), key))}`;
}
