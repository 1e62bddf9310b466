import type { IncomingHttpHeaders } from 'node:http';

/** The response headers a client of this contract reads, exposed to pages of allowed origins (docs/security.md, Browsers). */
export const EXPOSED_HEADERS: readonly string[] = [
  'ETag',
  'Location',
  'Link',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'X-Request-Id',
  'Idempotent-Replayed',
  'WWW-Authenticate',
  // The version an answer was made in, and whether that version is going away (docs/versions.md).
  'Api-Version',
  'Deprecation',
  'Sunset',
];

/** The request headers, beyond the CORS-safelisted ones, that a page may send. */
export const ALLOWED_REQUEST_HEADERS: readonly string[] = [
  'Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id', 'Last-Event-ID', 'Api-Version',
];

/** How long a browser may reuse a preflight's answer, in seconds: Chromium's own cap (Firefox's is a day). */
export const PREFLIGHT_MAX_AGE_S = 7200;

/** What CORS adds to the answer of one request: its headers (name, value, …), and whether it is a preflight to answer 204. */
export interface CorsAnswer {
  readonly preflight: boolean;
  readonly headers: readonly string[];
}

/** The CORS part of a request's answer, from its method, path and headers. */
export type Cors = (method: string, path: string, headers: IncomingHttpHeaders) => CorsAnswer;

/** The answer with CORS off: nothing added, never a preflight. */
export const NO_CORS: CorsAnswer = { preflight: false, headers: [] };

/** A CORS preflight (Fetch standard): OPTIONS with an `Origin` and the method it asks for. */
export function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}

// Everything one allowed origin's answers carry, made once.
interface Allowed {
  readonly response: CorsAnswer;
  readonly preflightHead: readonly string[];
}

// Every answer depends on Origin (whether it is allowed, and with a list, which one it is), so every
// answer says so, refusals included: a cache must never hand one origin's answer to another.
const VARY = ['vary', 'Origin'];
const REFUSED: CorsAnswer = { preflight: false, headers: VARY };
const REFUSED_PREFLIGHT: CorsAnswer = { preflight: true, headers: VARY };

function allowedFor(allowOrigin: string): Allowed {
  const head = ['access-control-allow-origin', allowOrigin, ...VARY];
  return { response: { preflight: false, headers: [...head, 'access-control-expose-headers', EXPOSED_HEADERS.join(', ')] }, preflightHead: head };
}

/**
 * The CORS protocol for `origins` (exact serialized origins, or `*`), or null when there are none
 * (CORS off: no header is ever added). A preflight's methods are its path's own, from `methodsAt`
 * (the router), so a new route is covered by itself. No credentials mode: no cookie is ever used.
 */
export function createCors(origins: '*' | readonly string[], methodsAt: (path: string) => readonly string[]): Cors | null {
  if (origins !== '*' && origins.length === 0) return null;
  const any = origins === '*' ? allowedFor('*') : null;
  const byOrigin = new Map(origins === '*' ? [] : origins.map((origin) => [origin, allowedFor(origin)]));
  const preflightTail = ['access-control-allow-headers', ALLOWED_REQUEST_HEADERS.join(', '), 'access-control-max-age', String(PREFLIGHT_MAX_AGE_S)];
  return function cors(method, path, headers) {
    const origin = headers.origin;
    const allowed = origin === undefined ? undefined : (any ?? byOrigin.get(origin));
    if (!isPreflight(method, headers)) return allowed?.response ?? REFUSED;
    const methods = methodsAt(path);
    if (allowed === undefined || !methods.includes(headers['access-control-request-method'] as string)) return REFUSED_PREFLIGHT;
    return { preflight: true, headers: [...allowed.preflightHead, 'access-control-allow-methods', methods.join(', '), ...preflightTail] };
  };
}
