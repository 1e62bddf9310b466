import type { Caller } from '../callers/caller.ts';
import { type Scope, scopeNamed } from '../callers/scopes.ts';

/** What a token's claims must say: the issuer and audience of SVC_JWT_ISSUER and SVC_JWT_AUDIENCE. */
export interface ExpectedClaims {
  readonly issuer: string;
  readonly audience: string;
}

/** The clock skew allowed on `exp` and `nbf` (at most 60 s, as docs/security.md promises). */
export const CLOCK_SKEW_S = 60;

/** A verified token's caller and the second from which it is refused as expired, or why its claims are refused. */
export type ClaimsVerdict =
  | { readonly ok: true; readonly caller: Caller; readonly usableUntil: number }
  | { readonly ok: false; readonly reason: 'invalid' | 'expired' };

const INVALID: ClaimsVerdict = { ok: false, reason: 'invalid' };

function hasAudience(aud: unknown, audience: string): boolean {
  return aud === audience || (Array.isArray(aud) && aud.includes(audience));
}

// Space-separated names (RFC 9068 `scope`, Entra ID's `scp`) or an array of them (Okta's `scp`), in
// either claim. A claim of another shape grants nothing: the token stays valid, and meets 403 wherever
// a scope is needed.
function scopeNames(value: unknown): readonly unknown[] {
  if (typeof value === 'string') return value.split(' ');
  return Array.isArray(value) ? value : [];
}

// Entra ID's app-only tokens carry their application permissions (app roles) in `roles`, always an
// array, and no `scp`; RFC 9068 §2.2.3.1 names `roles` too. Another shape grants nothing.
function roleNames(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The service's scopes a token grants: from `scope` (else `scp`) and `roles`; names the service does not have are ignored. */
export function grantedScopes(claims: Record<string, unknown>): Scope[] {
  const names = [...scopeNames(claims['scope'] !== undefined ? claims['scope'] : claims['scp']), ...roleNames(claims['roles'])];
  const scopes = new Set<Scope>();
  for (const name of names) {
    const scope = typeof name === 'string' ? scopeNamed(name) : undefined;
    if (scope !== undefined) scopes.add(scope);
  }
  return [...scopes].sort((a, b) => a - b);
}

// RFC 9068's client_id, else OpenID Connect's azp (Keycloak and Entra ID name the client there).
function clientOf(claims: Record<string, unknown>): string | undefined {
  for (const name of ['client_id', 'azp']) {
    const value = claims[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Checks a verified token's claims at `now` (seconds), in this order: iss, aud, exp and sub present,
 * iat and nbf well-formed, nbf reached, then exp not passed, so only an otherwise valid token learns it expired.
 */
export function checkClaims(claims: Record<string, unknown>, expected: ExpectedClaims, now: number): ClaimsVerdict {
  const { exp, sub, nbf, iat } = claims;
  if (claims['iss'] !== expected.issuer || !hasAudience(claims['aud'], expected.audience)) return INVALID;
  if (typeof exp !== 'number' || typeof sub !== 'string' || sub === '') return INVALID;
  if ((iat !== undefined && typeof iat !== 'number') || (nbf !== undefined && typeof nbf !== 'number')) return INVALID;
  if (nbf !== undefined && nbf > now + CLOCK_SKEW_S) return INVALID;
  if (exp <= now - CLOCK_SKEW_S) return { ok: false, reason: 'expired' };
  const clientId = clientOf(claims);
  const caller: Caller = { kind: 'token', id: sub, scopes: grantedScopes(claims), ...(clientId === undefined ? {} : { clientId }), expiresAt: exp * 1000 };
  return { ok: true, caller, usableUntil: exp + CLOCK_SKEW_S };
}
