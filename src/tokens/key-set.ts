import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ALGORITHM_RULES, type Algorithm } from './algorithms.ts';

/** One member of the issuer's JWKS, as read once when the set is fetched. */
interface VerificationKey {
  readonly kid: unknown;
  readonly kty: unknown;
  readonly crv: unknown;
  readonly alg: unknown;
  readonly use: unknown;
  /** Whether `key_ops` is absent, or a list of distinct names that includes `verify` (RFC 7517 §4.3). */
  readonly verifies: boolean;
  /** The public key, or null when it cannot serve: not importable, private material, RSA under 2048 bits. */
  readonly key: KeyObject | null;
}

/** The issuer's signing keys, as the service holds them between fetches. */
export interface KeySet {
  readonly keys: readonly VerificationKey[];
  /** Every `kid` the set names, usable or not: a token naming one of them is not an unknown key. */
  readonly kids: ReadonlySet<string>;
}

/** The key a token's `alg` and `kid` select: one usable key, a known key unfit for it, or none at all. */
export type KeyChoice = { readonly kind: 'found'; readonly key: KeyObject } | { readonly kind: 'unfit' } | { readonly kind: 'absent' };

const MIN_RSA_BITS = 2048;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A JWKS is for verifying: a member with private material is a leak on the issuer's side, never used.
function importPublic(jwk: Record<string, unknown>): KeyObject | null {
  if (jwk['d'] !== undefined) return null;
  try {
    // node:crypto reads the key as its kty and crv say (the ones fits() matches to the algorithm), and
    // checks every member, the point on the curve included; a bad one throws.
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return null;
    return key;
  } catch {
    return null;
  }
}

function verifies(keyOps: unknown): boolean {
  if (keyOps === undefined) return true;
  if (!Array.isArray(keyOps) || keyOps.some((op) => typeof op !== 'string') || new Set(keyOps).size !== keyOps.length) return false;
  return keyOps.includes('verify');
}

function readKey(jwk: Record<string, unknown>): VerificationKey {
  const ext = jwk['ext'];
  const wellFormed = ext === undefined || typeof ext === 'boolean';
  return { kid: jwk['kid'], kty: jwk['kty'], crv: jwk['crv'], alg: jwk['alg'], use: jwk['use'], verifies: wellFormed && verifies(jwk['key_ops']), key: importPublic(jwk) };
}

/** The key set of a JWKS document (RFC 7517 §5), or null when `document` is not one. */
export function readKeySet(document: unknown): KeySet | null {
  if (!isPlainObject(document) || !Array.isArray(document['keys'])) return null;
  const members: unknown[] = document['keys'];
  if (!members.every(isPlainObject)) return null;
  const keys = members.map(readKey);
  const kids = new Set(keys.flatMap((key) => (typeof key.kid === 'string' ? [key.kid] : [])));
  return { keys, kids };
}

// The rules of jose's createLocalJWKSet: the kty (and curve) the algorithm needs, the `kid` if the token
// names one, and the key's own `alg`, `use` and `key_ops` when it states them.
function fits(key: VerificationKey, alg: Algorithm, kid: string | undefined): boolean {
  const rule = ALGORITHM_RULES[alg];
  return (
    key.verifies &&
    key.kty === rule.kty &&
    (kid === undefined || key.kid === kid) &&
    (key.alg === undefined || key.alg === alg) &&
    (key.use === undefined || key.use === 'sig') &&
    (rule.crv === undefined || key.crv === rule.crv)
  );
}

/** The one key of `set` that may verify a token signed with `alg` naming `kid`. */
export function chooseKey(set: KeySet, alg: Algorithm, kid: string | undefined): KeyChoice {
  const candidates = set.keys.filter((key) => fits(key, alg, kid));
  // Two keys that both fit are ambiguous (jose refuses them too); a fitting key that could not be
  // imported, or is too weak, is refused, never replaced by a guess.
  if (candidates.length === 1 && candidates[0]?.key != null) return { kind: 'found', key: candidates[0].key };
  if (candidates.length > 0) return { kind: 'unfit' };
  return kid !== undefined && set.kids.has(kid) ? { kind: 'unfit' } : { kind: 'absent' };
}
