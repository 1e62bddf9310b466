import { constants, type KeyObject, verify } from 'node:crypto';

/** The signing algorithms an access token may use: asymmetric only, one curve or padding each. */
export const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

/** What a verification key must be for one algorithm, and how a signature is checked with it. */
export interface AlgorithmRule {
  /** The JWK `kty` the key must have. */
  readonly kty: 'RSA' | 'EC' | 'OKP';
  /** The JWK `crv` the key must have, for curve-based algorithms. */
  readonly crv?: 'P-256' | 'Ed25519';
  /** Whether `signature` over `data` is valid for `key`; never throws. */
  verify(data: Buffer, key: KeyObject, signature: Buffer): boolean;
}

// RFC 7518 §3.5: PS256's salt is exactly as long as its hash; OpenSSL would otherwise accept any.
const PSS_SALT_BYTES = 32;

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    // A signature OpenSSL cannot even parse is simply not a valid one.
    return false;
  }
}

/** Each allowed algorithm's key rule and signature check, with node:crypto alone. */
export const ALGORITHM_RULES: Readonly<Record<Algorithm, AlgorithmRule>> = {
  RS256: {
    kty: 'RSA',
    verify: (data, key, signature) => safely(() => verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature)),
  },
  PS256: {
    kty: 'RSA',
    verify: (data, key, signature) =>
      safely(() => verify('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: PSS_SALT_BYTES }, signature)),
  },
  ES256: {
    kty: 'EC',
    crv: 'P-256',
    // RFC 7518 §3.4: r‖s, 64 bytes, not DER; node:crypto refuses any other length.
    verify: (data, key, signature) => safely(() => verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)),
  },
  EdDSA: {
    kty: 'OKP',
    crv: 'Ed25519',
    verify: (data, key, signature) => safely(() => verify(null, data, key, signature)),
  },
};

/** The algorithm `alg` names if it is on the allow-list (so never `none`, never HMAC), else undefined. */
export function allowedAlgorithm(alg: unknown): Algorithm | undefined {
  return ALGORITHMS.find((candidate) => candidate === alg);
}
