import type { Scope } from './scopes.ts';

/** Who calls (docs/security.md): the identity rate limits, idempotency keys and the access log name. */
export interface Caller {
  /** `key`: an API key; `token`: an access token of an OpenID Connect provider. */
  readonly kind: 'key' | 'token';
  /** The key's public id, or the token's `sub`. */
  readonly id: string;
  /** The token's `client_id`, when it names one. */
  readonly clientId?: string;
  readonly scopes: readonly Scope[];
  /** When the credential stops being valid (ms since the epoch), when it says: an access token's `exp`. A live stream ends then. */
  readonly expiresAt?: number;
  /** The API version its requests get when they name none (an API key's pin, docs/versions.md). */
  readonly apiVersion?: string;
}

/**
 * Why a request was refused, as the refusal counter labels it: a small fixed set, never a key id.
 * `missing`: no credential; `malformed`: not the shape of one; `unknown`: no such key or signing key;
 * `invalid`: a wrong secret, a bad signature or claim; `expired`, `revoked`: valid once;
 * `unverifiable`: it could not be checked now (the token provider unreachable);
 * `insufficient_scope`: valid, without the scope (403).
 */
export type RefusalReason = 'missing' | 'malformed' | 'unknown' | 'invalid' | 'expired' | 'revoked' | 'unverifiable' | 'insufficient_scope';

/** Every refusal reason, in the order the counter lists them. */
export const REFUSAL_REASONS: readonly RefusalReason[] = ['missing', 'malformed', 'unknown', 'invalid', 'expired', 'revoked', 'unverifiable', 'insufficient_scope'];

/** A credential refused: the reason (for metrics and logs) and what the caller may be told. */
export interface Refusal {
  readonly reason: RefusalReason;
  /**
   * Safe to show the caller: whether it was unknown, wrong or malformed is never told (one detail for
   * all), only what a holder of the whole secret or a validly signed token may learn (expired, revoked).
   */
  readonly detail: string;
}

/** What a credential check concluded. */
export type Identified = { readonly ok: true; readonly caller: Caller } | { readonly ok: false; readonly refusal: Refusal };

/**
 * Called by a check just before database work for a credential not yet known to be valid (the
 * pipeline counts the request against its address there); throws (a 429) to stop that work.
 */
export type Admit = () => void;

/**
 * One kind of credential (API keys, access tokens): the seam every kind implements, so the request
 * path has one code path for all of them. It never throws for a bad credential; it may reject when
 * storage cannot answer (StorageUnavailableError), which is a 503, not a 401, and throws or rejects
 * with what `admit` throws.
 */
export interface CredentialCheck {
  /** The caller `credential` (the text after `Bearer `) stands for, or why not; synchronous when it can be. */
  identify(credential: string, admit?: Admit): Identified | Promise<Identified>;
}

/** The one detail of every refusal that must not say which check failed. */
export const NOT_VALID = 'The credential is not valid.';

/** A refusal that tells the caller nothing beyond "not valid". */
export function refused(reason: RefusalReason, detail: string = NOT_VALID): Identified {
  return { ok: false, refusal: { reason, detail } };
}
