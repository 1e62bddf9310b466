import { createHash, timingSafeEqual } from 'node:crypto';
import { Scope } from '../callers/scopes.ts';
import { HttpError } from './errors.ts';
import type { Access } from './router.ts';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A check of `Authorization: Bearer <token>`; comparing digests keeps the time constant whatever the length. */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => void {
  const expected = digest(token);
  const refuse = (detail: string): HttpError =>
    new HttpError('unauthorized', { detail, headers: { 'www-authenticate': 'Bearer' } });
  return (authorization) => {
    const match = authorization === undefined ? null : /^Bearer +(\S+) *$/i.exec(authorization);
    if (match === null) throw refuse('This request needs an Authorization: Bearer token.');
    if (!timingSafeEqual(digest(match[1] ?? ''), expected)) throw refuse('The bearer token is not valid.');
  };
}

/**
 * With SVC_API_TOKEN, which operations beside the writes need the token: every method of a route that
 * needs `admin` with keys (the webhooks: their URLs and delivery log often carry the receivers' tokens).
 */
export function tokenGuardsRoute(access: Access): boolean {
  return access === Scope.admin;
}
