import type { IncomingMessage } from 'node:http';
import type { Caller } from '../callers/caller.ts';
import type { Params } from './router.ts';
import type { StreamedBody } from './streamed-reply.ts';
import type { VersionView } from '../versions/api-versions.ts';

/** What a handler sees of a request. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Params;
  readonly requestId: string;
  /** Who calls, when SVC_AUTH is on and the route is not open; null otherwise. */
  readonly caller: Caller | null;
  /** The API version the answer is made in (docs/versions.md): named by the request, pinned on its key, or the default. */
  readonly version: VersionView;
}

/** What a handler answers: a status, a JSON value (or JSON text already made) and extra headers. */
export interface Reply {
  status: number;
  /** The JSON value of the body; with neither `body` nor `json`, the response has no body (204, 304). */
  body?: unknown;
  /** JSON text sent as it is; a stored idempotent response uses it. */
  json?: string;
  /** An HTML page sent as it is (the API's own page), with its own `content-security-policy` in `headers`. */
  html?: string;
  /** A body written over time (a live stream): the response stays open until it ends. */
  stream?: StreamedBody;
  headers?: Readonly<Record<string, string>>;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

export function ok(body: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return headers === undefined ? { status: 200, body } : { status: 200, body, headers };
}

export function created(location: string, body: unknown, etag: string): Reply {
  return { status: 201, body, headers: { location, etag } };
}

/** The `{id}` path parameter as a positive safe integer, or null (answered as 404). */
export function parseId(raw: string | undefined): number | null {
  if (raw === undefined || !/^[1-9]\d{0,15}$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}
