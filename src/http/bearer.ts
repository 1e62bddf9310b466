import type { Admit, CredentialCheck, Identified, Refusal } from '../callers/caller.ts';
import { nameOfScope, type Scope } from '../callers/scopes.ts';
import { HttpError } from './errors.ts';

// RFC 6750 §2.1: `Bearer` (any letter case), white space, then a b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
// A field that presents no bearer credential: another scheme (`Basic …`), or `Bearer` with nothing after it.
const NO_BEARER_CREDENTIAL = /^(?!Bearer )|^Bearer *$/i;

const MISSING: Identified = {
  ok: false,
  refusal: { reason: 'missing', detail: 'This request needs an Authorization: Bearer header with an API key or access token.' },
};
const MALFORMED: Identified = { ok: false, refusal: { reason: 'malformed', detail: 'The credential is not valid.' } };

/** The credential of an `Authorization: Bearer …` field, or null when the field is not of that shape. */
export function bearerCredential(authorization: string): string | null {
  return BEARER.exec(authorization)?.[1] ?? null;
}

/** Who sent a request, by its Authorization field and the kind of credential the service takes; `admit` as CredentialCheck says. */
export function identifyRequest(check: CredentialCheck, authorization: string | undefined, admit?: Admit): Identified | Promise<Identified> {
  // RFC 6750 §3.1: a request that presents no bearer credential (none, or another scheme) gets no error code.
  if (authorization === undefined || NO_BEARER_CREDENTIAL.test(authorization)) return MISSING;
  const credential = bearerCredential(authorization);
  return credential === null ? MALFORMED : check.identify(credential, admit);
}

// A quoted-string of RFC 6750 §3 carries no `"` or `\`, and only visible ASCII and spaces.
function quoted(text: string): string {
  return `"${text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '')}"`;
}

/**
 * 401 unauthorized with RFC 6750's challenge: a bare `Bearer` when no credential came, and
 * `error="invalid_token"` with the refusal's detail when one did.
 */
export function unauthorized(refusal: Refusal): HttpError {
  const challenge = refusal.reason === 'missing' ? 'Bearer' : `Bearer error="invalid_token", error_description=${quoted(refusal.detail)}`;
  return new HttpError('unauthorized', { detail: refusal.detail, headers: { 'www-authenticate': challenge } });
}

/** 403 forbidden: a valid credential without the scope `needed` (RFC 6750 §3.1 insufficient_scope). */
export function forbidden(needed: Scope): HttpError {
  const name = nameOfScope(needed);
  return new HttpError('forbidden', {
    detail: `This operation needs the ${name} scope.`,
    headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${name}"` },
  });
}
