import { type Algorithm, allowedAlgorithm } from './algorithms.ts';
import { decodeBase64url } from './base64url.ts';

/** A token whose shape and header passed: what key lookup and signature verification need. */
export interface SignedToken {
  readonly alg: Algorithm;
  /** The header's `kid`, naming the issuer's key; undefined when the token names none. */
  readonly kid: string | undefined;
  /** The ASCII bytes the signature covers: `header.payload` as sent. */
  readonly signingInput: Buffer;
  readonly signature: Buffer;
  /** The payload's bytes, read only once the signature is verified. */
  readonly payload: Buffer;
}

/** Why a token was refused before any key was looked up. */
export type EarlyRefusal = 'malformed' | 'invalid';

/** The longest token read (characters): far above any provider's access tokens, so parsing costs little. */
export const MAX_TOKEN_LENGTH = 8192;

// Headers that carry or point at a key of the token's own choosing (RFC 7515 §4.1.3–4.1.6). Keys come
// from the issuer's JWKS only, so a token that offers another is refused rather than quietly ignored.
const KEY_CARRYING_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;

// RFC 9068 §4 names at+jwt; Keycloak and Entra ID send JWT; many send none. RFC 7515 §4.1.9: the
// media type is case-insensitive and `application/` may be left out.
const ACCEPTED_TYPES: ReadonlySet<string> = new Set(['at+jwt', 'jwt']);

// ignoreBOM keeps a leading U+FEFF in the text, where JSON.parse refuses it; by default the decoder
// would drop it silently, and a header or payload with one would parse as if it had none.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` as a JSON object (UTF-8, no byte-order tricks), or null for anything else. */
export function jsonObject(bytes: Buffer): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function acceptedType(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== 'string') return false;
  const type = typ.toLowerCase();
  return ACCEPTED_TYPES.has(type.startsWith('application/') ? type.slice('application/'.length) : type);
}

// The header rules, in jose's order: crit, alg, then the rules of this profile. `crit` names extensions
// the token insists on; this service understands none, so any `crit` at all is refused (RFC 7515 §4.1.11).
function checkHeader(header: Record<string, unknown>): { alg: Algorithm; kid: string | undefined } | null {
  if (Object.hasOwn(header, 'crit')) return null;
  const alg = allowedAlgorithm(header['alg']);
  if (alg === undefined) return null;
  if (KEY_CARRYING_HEADERS.some((name) => Object.hasOwn(header, name))) return null;
  const kid = header['kid'];
  if (kid !== undefined && typeof kid !== 'string') return null;
  return acceptedType(header['typ']) ? { alg, kid } : null;
}

/** Parses a compact JWS and checks its header: a SignedToken, or why it is refused before key lookup. */
export function parseCompactJws(token: string): SignedToken | EarlyRefusal {
  if (token.length > MAX_TOKEN_LENGTH) return 'malformed';
  const parts = token.split('.');
  if (parts.length !== 3) return 'malformed';
  const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = parts;
  const headerBytes = decodeBase64url(encodedHeader);
  const payload = decodeBase64url(encodedPayload);
  const signature = decodeBase64url(encodedSignature);
  if (headerBytes === null || payload === null || signature === null) return 'malformed';
  const header = jsonObject(headerBytes);
  if (header === null) return 'malformed';
  const checked = checkHeader(header);
  if (checked === null) return 'invalid';
  return { ...checked, signingInput: Buffer.from(`${encodedHeader}.${encodedPayload}`, 'ascii'), signature, payload };
}
