import { HttpError } from './errors.ts';
import type { Reply } from './reply.ts';

/**
 * A request target as the app serves it (RFC 9112 §3.2). `origin`: a path, sent as one or taken out
 * of an http(s) URI in absolute form; `asterisk`: `*`, the server as a whole; `refused`: neither.
 */
export interface RequestTarget {
  readonly form: 'origin' | 'asterisk' | 'refused';
  /** The path to route: the origin-form path, `*`, or '' when refused. */
  readonly path: string;
  /** The query string, without its `?`. */
  readonly query: string;
  /** What the access log shows: the origin form (path and query), `*`, or a refused target without user information. */
  readonly logged: string;
  /** Why a refused target is 400. */
  readonly refusal: HttpError | null;
}

// scheme "://" authority, then the rest (path, query) of an absolute URI (RFC 3986 §3).
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

function originForm(target: string): RequestTarget {
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  return { form: 'origin', path, query: queryAt === -1 ? '' : target.slice(queryAt + 1), logged: target, refusal: null };
}

function refused(logged: string, detail: string): RequestTarget {
  return { form: 'refused', path: '', query: '', logged, refusal: new HttpError('bad_request', { detail }) };
}

// RFC 9110 §4.2.1, §4.2.4: an http(s) URI must name a host, and user information in one is an error.
function absoluteForm(scheme: string, authority: string, rest: string): RequestTarget {
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  const logged = `${scheme}://${host}${rest}`;
  if (!/^https?$/i.test(scheme)) return refused(logged, 'The request target must be a path such as /api/ping, or an http or https URI.');
  if (authority.includes('@')) return refused(logged, 'The request target must not carry user information (user:password@).');
  if (host === '' || host.startsWith(':')) return refused(logged, 'The request target URI has no host.');
  // The rest is path-abempty then the query: with no path, the path is `/` (RFC 9110 §4.2.3).
  return originForm(rest.startsWith('/') ? rest : `/${rest}`);
}

/**
 * Reads `target` (req.url): the origin form as it is; the absolute form of an http or https URI as
 * its origin form, its authority ignored like the Host header (RFC 9112 §3.2.2); `*` as the
 * asterisk form. Anything else node:http lets through (another scheme) is refused.
 */
export function parseRequestTarget(target: string): RequestTarget {
  if (target.startsWith('/')) return originForm(target);
  if (target === '*') return { form: 'asterisk', path: '*', query: '', logged: '*', refusal: null };
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute === null) return refused('', 'The request target must be a path such as /api/ping, or an http or https URI.');
  return absoluteForm(absolute[1] ?? '', absolute[2] ?? '', absolute[3] ?? '');
}

/** Every method the service serves on some path, HEAD with GET, sorted: the `Allow` of OPTIONS *. */
export function servedMethods(routes: readonly { method: string }[]): string[] {
  const methods = new Set(routes.map((route) => route.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * The answer to a target that names no resource: OPTIONS * asks about the server as a whole and gets
 * 204 with `allow`; `*` with any other method (RFC 9112 §3.2.4) and a refused target are 400.
 */
export function answerServerWide(target: RequestTarget, method: string, allow: readonly string[]): Reply {
  if (target.form === 'asterisk' && method === 'OPTIONS') return { status: 204, headers: { allow: allow.join(', ') } };
  throw target.refusal ?? new HttpError('bad_request', { detail: 'Only OPTIONS may have * as its request target.' });
}
