import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller, CredentialCheck, Identified, RefusalReason } from '../callers/caller.ts';
import { allows } from '../callers/scopes.ts';
import { StorageBusyError, StorageUnavailableError } from '../db/errors.ts';
import type { Logger } from '../log/logger.ts';
import { throttled } from '../log/throttled.ts';
import { logRequest } from './access-log.ts';
import { tokenGuardsRoute } from './auth.ts';
import { forbidden, identifyRequest, unauthorized } from './bearer.ts';
import type { ClientAddressResolver } from './client-address.ts';
import { type Cors, isPreflight, NO_CORS } from './cors.ts';
import { HttpError } from './errors.ts';
import { checkHostHeader } from './host-header.ts';
import { asClientError } from './problem.ts';
import { type RateLimitGuard, rateLimitKey } from './rate-limit.ts';
import type { Handler, Reply, RequestContext } from './reply.ts';
import { requestIdFrom } from './request-id.ts';
import { answerServerWide, parseRequestTarget, type RequestTarget, servedMethods } from './request-target.ts';
import { sendProblem, sendReply } from './respond.ts';
import type { RouteMatch, Router } from './router.ts';
import type { StreamAdmission } from './stream-admission.ts';
import { sendStream, type StreamedBody, type StreamLimits } from './streamed-reply.ts';
import type { Negotiator } from '../versions/negotiate.ts';
import { joined, NO_HEADERS, pinReader, underApi, VARY_VERSION } from './version-headers.ts';

/** What the pipeline reports as requests pass, for whoever counts them (src/app.ts wires the metrics). */
export interface RequestReport {
  started(): void;
  /** A request answered, under its route pattern (`UNMATCHED` for an unknown path), in an API version (null: not under /api; `unsupported`: refused for it). */
  finished(method: string, route: string | null, status: number, startedAt: number, version: string | null): void;
  rateLimited(): void;
  replayed(): void;
  refused(reason: RefusalReason): void;
}

/** Everything a request passes through, built once by src/app.ts. */
export interface PipelineParts {
  router: Router<Handler>;
  logger: Logger;
  /** Who calls, when SVC_AUTH is on; null: every route is open to anyone. */
  credentials: CredentialCheck | null;
  /** SVC_API_TOKEN's check of writes and of admin routes (only with SVC_AUTH=off), or null. */
  checkToken: ((authorization: string | undefined) => void) | null;
  limitRate: RateLimitGuard | null;
  cors: Cors | null;
  clientAddressOf: ClientAddressResolver;
  report: RequestReport | null;
  /** How each request's API version is chosen. */
  versions: Negotiator;
  /** What a logged URL must not show besides keys and tokens (SVC_API_TOKEN's spellings); nothing by default. */
  redactUrl?: (url: string) => string;
  /** How many streamed replies may be open, per client and in all; none counted when absent. */
  streams?: StreamAdmission | null;
}

/** A `node:http` request listener, and the switch of a graceful shutdown. */
export interface Pipeline {
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** From now on, answer every request 503 with `Connection: close`. */
  drain(): void;
}

// The answer to every CORS preflight; its CORS headers say whether the browser may go on.
const PREFLIGHT: Reply = { status: 204 };
// With SVC_API_TOKEN, every method that changes something needs the token, and every method of an
// admin route (docs/configuration.md).
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);
const SHUTTING_DOWN = { detail: 'The service is shutting down.', headers: { connection: 'close' } };

/** A request's context, filled in as the pipeline learns it (route parameters, caller). */
type Context = { -readonly [K in keyof RequestContext]: RequestContext[K] };

// Who a request counts against, for the rate limit and the stream limit: its caller with SVC_AUTH on.
const callerKey = (caller: Caller): string => `${caller.kind}:${caller.id}`;

/**
 * The phases of every request, in order (docs/api.md, Order of checks): shutting down (503); one Host
 * (400); a target that names the server, not a resource (`OPTIONS *`); a CORS preflight (204, before
 * any credential); with SVC_AUTH on and a route that is not open, who calls (401, before anything about
 * the path is told; an address over its rate limit gets 429 before a credential costs database work);
 * the rate limit, per caller or per address (429); the route (404, 405); the token of
 * SVC_API_TOKEN on writes, or the caller's scope (401, 403); then the handler.
 */
export function createPipeline(parts: PipelineParts): Pipeline {
  const { router, logger, credentials, checkToken, limitRate, cors, clientAddressOf, report, versions } = parts;
  const streams = parts.streams ?? null;
  const pinOf = pinReader(credentials);
  const redactUrl = parts.redactUrl ?? ((url: string) => url);
  const serverWide = servedMethods(router.routes());
  let draining = false;
  // Live streams still open, each with how to end it: graceful shutdown ends them all.
  const openStreams = new Set<() => void>();
  // Each such request is answered 503 and access-logged; this says why, a line every few seconds.
  const storageTrouble = throttled<{ reqId: string; error: Error }>(5_000, ({ reqId, error }, heldBack) => {
    logger.warn('database unavailable or busy; answering 503', { reqId, reason: error.message, heldBack });
  });

  // Readiness probes come from orchestrators and load balancers, not clients: never limited.
  function limit(res: ServerResponse, ctx: Context, client: string, peekOnly = false): void {
    if (limitRate !== null && ctx.path !== '/api/ping') limitRate(res, client, peekOnly);
  }

  function found(match: RouteMatch<Handler>): Extract<RouteMatch<Handler>, { kind: 'found' }> {
    if (match.kind === 'not_found') throw new HttpError('not_found');
    if (match.kind === 'method_not_allowed') throw new HttpError('method_not_allowed', { headers: { allow: match.allow.join(', ') } });
    return match;
  }

  // SVC_AUTH=off, or an open route: the route first, then the one token of SVC_API_TOKEN on writes and admin routes.
  function dispatchOpen(ctx: Context, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>, named: boolean): Reply | Promise<Reply> {
    if (!named) {
      const pinned = pinOf(ctx.req.headers.authorization);
      if (pinned instanceof Promise) return pinned.then((pin) => openWith(ctx, res, clientAddress, match, pin));
      return openWith(ctx, res, clientAddress, match, pinned);
    }
    return openWith(ctx, res, clientAddress, match, null);
  }

  // The open route itself, its version chosen (`pin`: a key's, undefined: none; null: named by the request).
  function openWith(ctx: Context, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>, pin: string | undefined | null): Reply | Promise<Reply> {
    if (pin !== null) ctx.version = versions.unnamed(ctx.path, pin);
    limit(res, ctx, clientAddress);
    const route = found(match);
    if (checkToken !== null && (WRITE_METHODS.has(ctx.method) || tokenGuardsRoute(route.access))) checkToken(ctx.req.headers.authorization);
    ctx.params = route.params;
    return route.handler(ctx);
  }

  // SVC_AUTH on: the rate limit counts per caller, or per address without valid credentials, and a
  // refusal (401) comes before the route is looked at.
  function dispatchAs(identified: Identified, ctx: Context, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>, named: boolean): Reply | Promise<Reply> {
    const caller = identified.ok ? identified.caller : null;
    limit(res, ctx, caller === null ? clientAddress : callerKey(caller));
    if (!identified.ok) {
      report?.refused(identified.refusal.reason);
      throw unauthorized(identified.refusal);
    }
    // Once the key is accepted, its pin chooses the version of a request that names none.
    if (!named) ctx.version = versions.unnamed(ctx.path, identified.caller.apiVersion);
    const route = found(match);
    if (route.access !== 'open' && !allows(identified.caller.scopes, route.access)) {
      report?.refused('insufficient_scope');
      throw forbidden(route.access);
    }
    ctx.params = route.params;
    return route.handler(ctx);
  }

  // The match is made before the checks (it is pure), so even a refused request is counted under its route.
  function route(ctx: Context, target: RequestTarget, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>): Reply | Promise<Reply> {
    if (draining) throw new HttpError('unavailable', SHUTTING_DOWN);
    checkHostHeader(ctx.req);
    // `OPTIONS *` asks what the server as a whole supports, which the OpenAPI document tells anyone anyway.
    if (target.form !== 'origin') {
      limit(res, ctx, clientAddress);
      return answerServerWide(target, ctx.method, serverWide);
    }
    // A preflight carries no credentials and does no work; a refused one (no CORS headers) looks the same whatever the path.
    if (cors !== null && isPreflight(ctx.method, ctx.req.headers)) return PREFLIGHT;
    // A version the request names is checked before anything else, credentials included.
    const named = versions.named(ctx.path, ctx.req.headers['api-version'], ctx.query);
    if (named !== undefined) ctx.version = named;
    if (credentials === null || (match.kind === 'found' && match.access === 'open')) return dispatchOpen(ctx, res, clientAddress, match, named !== undefined);
    // Before a credential not yet known to be valid may cost database work: an address over its limit
    // gets 429 without any. Not counted here: a valid key counts against its own quota, not its address's.
    const admit = (): void => limit(res, ctx, clientAddress, true);
    const settle = (identified: Identified): Reply | Promise<Reply> => {
      // Known from here on, for the handler and the access log (a 403 names its caller too).
      if (identified.ok) ctx.caller = identified.caller;
      return dispatchAs(identified, ctx, res, clientAddress, match, named !== undefined);
    };
    const identified = identifyRequest(credentials, ctx.req.headers.authorization, admit);
    return identified instanceof Promise ? identified.then(settle) : settle(identified);
  }

  // A stream's caller is asked about again as it runs: a revoked key or an expired token ends it.
  function limitsOf(ctx: Context): StreamLimits {
    const caller = ctx.caller;
    if (credentials === null || caller === null) return { stillValid: null, expiresAt: undefined };
    const authorization = ctx.req.headers.authorization;
    const stillValid = async (): Promise<boolean> => (await identifyRequest(credentials, authorization)).ok;
    return { stillValid, expiresAt: caller.expiresAt };
  }

  // A streamed reply is admitted (or refused: throws) before its head is sent, holds its place until
  // it ends, and is logged and counted once, when it ends, with its whole duration.
  function stream(ctx: Context, res: ServerResponse, reply: Reply & { stream: StreamedBody }, clientAddress: string, cors: readonly string[], finish: (status: number) => void): void {
    const release = streams?.admit(ctx.caller === null ? rateLimitKey(clientAddress) : callerKey(ctx.caller));
    const open = sendStream(ctx.req, res, reply, ctx.requestId, cors, limitsOf(ctx));
    openStreams.add(open.stop);
    void open.ended.then(() => {
      release?.();
      openStreams.delete(open.stop);
      finish(200);
    });
  }

  function listener(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = performance.now();
    report?.started();
    // Absolute form is served as its origin form, which is all the log, metrics and problems show.
    const target = parseRequestTarget(req.url ?? '/');
    const ctx: Context = {
      req,
      method: req.method ?? 'GET',
      path: target.path,
      query: new URLSearchParams(target.query),
      params: {},
      requestId: requestIdFrom(req.headers['x-request-id']),
      caller: null,
      // Until the request's own is known, answers (a 401, a 413) are made in the default version.
      version: versions.fallback(),
    };
    const remoteAddress = clientAddressOf(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const match = router.match(ctx.method, ctx.path);
    const corsHeaders = (cors === null ? NO_CORS : cors(ctx.method, ctx.path, req.headers)).headers;
    const api = underApi(ctx.path);
    let refusedVersion = false;
    const versionHeaders = (): readonly string[] => (!api ? NO_HEADERS : refusedVersion ? VARY_VERSION : ctx.version.headers);
    const count = (status: number): void =>
      report?.finished(ctx.method, match.kind === 'not_found' ? null : match.pattern, status, startedAt, !api ? null : refusedVersion ? 'unsupported' : ctx.version.id);
    const finish = (status: number): void => {
      count(status);
      logRequest(logger, { requestId: ctx.requestId, method: ctx.method, url: redactUrl(target.logged), remoteAddress, statusCode: status, startedAt, caller: ctx.caller });
    };
    const fail = (thrown: unknown): void => {
      const error = asClientError(thrown);
      if (thrown instanceof StorageUnavailableError || thrown instanceof StorageBusyError) storageTrouble({ reqId: ctx.requestId, error: thrown });
      if (!(error instanceof HttpError)) logger.error('unexpected error', { reqId: ctx.requestId, err: error });
      else if (error.code === 'rate_limited') report?.rateLimited();
      else if (error.code === 'unsupported_api_version') refusedVersion = true;
      if (res.headersSent) {
        res.destroy();
        count(res.statusCode);
        return;
      }
      // Once draining, a request that was already in flight still ends its connection.
      if (draining) res.setHeader('connection', 'close');
      sendProblem(req, res, error, ctx.path, ctx.requestId, joined(corsHeaders, versionHeaders()));
      finish(res.statusCode);
    };
    const succeed = (reply: Reply): void => {
      if (draining) res.setHeader('connection', 'close');
      if (reply.headers?.['idempotent-replayed'] !== undefined) report?.replayed();
      const headers = api ? joined(corsHeaders, ctx.version.headers) : corsHeaders;
      if (reply.stream !== undefined) return stream(ctx, res, { ...reply, stream: reply.stream }, remoteAddress, headers, finish);
      sendReply(req, res, reply, ctx.requestId, headers);
      finish(reply.status);
    };
    // A stream refused for the stream limits is thrown by succeed, before anything is sent.
    const answer = (reply: Reply): void => {
      try {
        succeed(reply);
      } catch (error) {
        fail(error);
      }
    };
    try {
      const reply = route(ctx, target, res, remoteAddress, match);
      if (reply instanceof Promise) reply.then(answer, fail);
      else answer(reply);
    } catch (error) {
      fail(error);
    }
  }

  return {
    listener,
    drain: () => {
      draining = true;
      for (const stop of openStreams) stop();
    },
  };
}
