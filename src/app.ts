import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller, CredentialCheck, Identified } from './callers/caller.ts';
import { allows } from './callers/scopes.ts';
import type { Config } from './config.ts';
import { latestVersion } from './db/migrate.ts';
import { createStorage, type Database, defaultSqlDirFor, isPostgres } from './db/engine.ts';
import { StorageBusyError, StorageUnavailableError } from './db/errors.ts';
import { logRequest } from './http/access-log.ts';
import { bearerTokenCheck } from './http/auth.ts';
import { forbidden, identifyRequest, unauthorized } from './http/bearer.ts';
import { createClientAddressResolver } from './http/client-address.ts';
import { createCors, isPreflight, NO_CORS } from './http/cors.ts';
import type { WriteDeps } from './http/write-input.ts';
import { HttpError } from './http/errors.ts';
import { checkHostHeader } from './http/host-header.ts';
import type { Handler, Reply, RequestContext } from './http/reply.ts';
import { requestIdFrom } from './http/request-id.ts';
import { answerServerWide, parseRequestTarget, type RequestTarget, servedMethods } from './http/request-target.ts';
import { asClientError } from './http/problem.ts';
import { sendProblem, sendReply } from './http/respond.ts';
import { rateLimitGuard } from './http/rate-limit.ts';
import { type Access, createRouter, type RouteMatch } from './http/router.ts';
import { IdempotentWrites } from './idempotency/idempotent-write.ts';
import { createLogger, type Logger } from './log/logger.ts';
import { throttled } from './log/throttled.ts';
import { UNMATCHED_ROUTE } from './metrics/http-metrics.ts';
import { poolGauge } from './metrics/pool-gauge.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';
import { addOpenApiRoutes } from './openapi/routes.ts';
import { addProductRoutes } from './products/routes.ts';
import { createProductUseCases } from './products/use-cases.ts';
import { addReadinessRoutes } from './readiness/routes.ts';
import { createTokenCheck } from './tokens/token-check.ts';
import { addWorkspaceRoutes } from './workspaces/routes.ts';
import { createWorkspaceUseCases } from './workspaces/use-cases.ts';
import { createKeyCheck, type KeyCheck } from './keys/key-check.ts';
import { addKeyRoutes } from './keys/routes.ts';
import { createApiKeyUseCases } from './keys/use-cases.ts';
import type { Storage } from './db/storage.ts';

export interface AppOptions {
  /** A node:sqlite database (openDatabase) or a PostgreSQL pool (openPostgres), migrated. */
  db: Database;
  config: Config;
  logger?: Logger;
  /** The folder of migrations whose newest number readiness expects; the package's own for the engine by default. */
  sqlDir?: string;
  /** What to count requests, commits, replays and 429s in (createServiceMetrics()); nothing is counted without. */
  metrics?: ServiceMetrics | null;
  /**
   * How callers are identified when `config.auth` is not `off`: the service's own check of its mode
   * (API keys, access tokens) by default; an embedding program may bring its own.
   */
  credentials?: CredentialCheck;
}

/** A `node:http` request listener with the service's lifecycle controls. */
export interface App {
  (req: IncomingMessage, res: ServerResponse): void;
  /** From now on, answer every request 503 with `Connection: close` (graceful shutdown). */
  drain(): void;
  /** Every method and path pattern served (HEAD aside), with who may call it. */
  readonly routes: readonly { method: string; pattern: string; access: Access }[];
  readonly logger: Logger;
  /** The metrics given at creation (serve `metrics.text()` on a listener of your own), or null. */
  readonly metrics: ServiceMetrics | null;
}

// The answer to every CORS preflight; its CORS headers say whether the browser may go on.
const PREFLIGHT: Reply = { status: 204 };

// Every method that changes something needs the token when one is configured (docs/configuration.md).
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);

/** Wires database → repositories → use cases → routes, and returns the request listener. */
export function createApp(options: AppOptions): App {
  const { db, config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = options.metrics ?? null;
  const storage = createStorage(db, metrics === null ? {} : { onCommit: (size) => metrics.commitBatchSize.observe(size) });
  if (metrics !== null) countStorage(metrics, db);
  const writes: WriteDeps = { storage, idempotency: new IdempotentWrites(), bodyLimitBytes: config.bodyLimitBytes };
  const router = createRouter<Handler>();
  const ownCheck = options.credentials === undefined ? credentialCheckFor(config, storage, metrics, logger) : null;
  const credentials = config.auth === 'off' ? null : (options.credentials ?? ownCheck);
  addReadinessRoutes(router, storage.readiness, latestVersion(options.sqlDir ?? defaultSqlDirFor(db)));
  addProductRoutes(router, createProductUseCases(storage.products), writes);
  addWorkspaceRoutes(router, createWorkspaceUseCases(storage.workspaces), writes);
  if (config.auth === 'keys') addKeyRoutes(router, createApiKeyUseCases(storage.keys), writes, (apiKey) => ownCheck?.remember?.(apiKey));
  addOpenApiRoutes(router, config);
  const allowed = servedMethods(router.routes());
  const checkToken = config.apiToken === '' ? null : bearerTokenCheck(config.apiToken);
  const clientAddressOf = createClientAddressResolver(config.trustProxy);
  const limitRate = rateLimitGuard(config.rateLimit, config.rateLimitWindowS);
  const cors = createCors(config.corsOrigins, router.methodsAt);
  let draining = false;
  // Each such request is answered 503 and access-logged; this says why, a line every few seconds.
  const storageTrouble = throttled<{ reqId: string; error: Error }>(5_000, ({ reqId, error }, heldBack) => {
    logger.warn('database unavailable or busy; answering 503', { reqId, reason: error.message, heldBack });
  });

  // Readiness probes come from orchestrators and load balancers, not clients: never limited.
  function limit(res: ServerResponse, ctx: RequestContext, client: string): void {
    if (limitRate !== null && ctx.path !== '/api/ping') limitRate(res, client);
  }

  function found(match: RouteMatch<Handler>): Extract<RouteMatch<Handler>, { kind: 'found' }> {
    if (match.kind === 'not_found') throw new HttpError('not_found');
    if (match.kind === 'method_not_allowed') throw new HttpError('method_not_allowed', { headers: { allow: match.allow.join(', ') } });
    return match;
  }

  // SVC_AUTH=off, or an open route: routing first, then the one token of SVC_API_TOKEN on writes.
  function dispatchOpen(ctx: RequestContext, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>): Reply | Promise<Reply> {
    limit(res, ctx, clientAddress);
    const route = found(match);
    if (checkToken !== null && WRITE_METHODS.has(ctx.method)) checkToken(ctx.req.headers.authorization);
    return route.handler({ ...ctx, params: route.params });
  }

  // SVC_AUTH on: who calls is settled before anything about the path is told (a stranger gets 401,
  // never 404 or 405), and the rate limit counts per caller, or per address without valid credentials.
  function dispatchAs(identified: Identified, ctx: RequestContext, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>): Reply | Promise<Reply> {
    const caller = identified.ok ? identified.caller : null;
    limit(res, ctx, caller === null ? clientAddress : `${caller.kind}:${caller.id}`);
    if (!identified.ok) {
      metrics?.callersRefused.inc(identified.refusal.reason);
      throw unauthorized(identified.refusal);
    }
    const route = found(match);
    if (route.access !== 'open' && !allows(identified.caller.scopes, route.access)) {
      metrics?.callersRefused.inc('insufficient_scope');
      throw forbidden(route.access);
    }
    return route.handler({ ...ctx, params: route.params, caller: identified.caller });
  }

  // The match is made before the checks (it is pure), so even a refused request is counted under its
  // route; `known` learns the caller once it is identified, for the access log.
  function route(ctx: RequestContext, target: RequestTarget, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>, known: { caller: Caller | null }): Reply | Promise<Reply> {
    if (draining) throw new HttpError('unavailable', { detail: 'The service is shutting down.', headers: { connection: 'close' } });
    checkHostHeader(ctx.req);
    // `OPTIONS *` asks what the server as a whole supports, which the OpenAPI document tells anyone anyway.
    if (target.form !== 'origin') {
      limit(res, ctx, clientAddress);
      return answerServerWide(target, ctx.method, allowed);
    }
    // A preflight is answered before the caller check and the rate limit: it carries no credentials,
    // does no work, and a refused one (no CORS headers) looks the same whatever the path.
    if (cors !== null && isPreflight(ctx.method, ctx.req.headers)) return PREFLIGHT;
    if (credentials === null || (match.kind === 'found' && match.access === 'open')) return dispatchOpen(ctx, res, clientAddress, match);
    const settle = (identified: Identified): Reply | Promise<Reply> => {
      if (identified.ok) known.caller = identified.caller;
      return dispatchAs(identified, ctx, res, clientAddress, match);
    };
    const identified = identifyRequest(credentials, ctx.req.headers.authorization);
    return identified instanceof Promise ? identified.then(settle) : settle(identified);
  }

  const app = ((req: IncomingMessage, res: ServerResponse): void => {
    const startedAt = performance.now();
    metrics?.http.started();
    // Absolute form is served as its origin form, which is all the log, metrics and problems show.
    const target = parseRequestTarget(req.url ?? '/');
    const ctx: RequestContext = {
      req,
      method: req.method ?? 'GET',
      path: target.path,
      query: new URLSearchParams(target.query),
      params: {},
      requestId: requestIdFrom(req.headers['x-request-id']),
      caller: null,
    };
    const known: { caller: Caller | null } = { caller: null };
    const remoteAddress = clientAddressOf(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const match = router.match(ctx.method, ctx.path);
    const corsHeaders = (cors === null ? NO_CORS : cors(ctx.method, ctx.path, req.headers)).headers;
    const count = (status: number): void => {
      metrics?.http.finished(ctx.method, match.kind === 'not_found' ? UNMATCHED_ROUTE : match.pattern, status, startedAt);
    };
    const finish = (status: number): void => {
      count(status);
      logRequest(logger, { requestId: ctx.requestId, method: ctx.method, url: target.logged, remoteAddress, statusCode: status, startedAt, caller: known.caller });
    };
    const fail = (thrown: unknown): void => {
      const error = asClientError(thrown);
      if (thrown instanceof StorageUnavailableError || thrown instanceof StorageBusyError) storageTrouble({ reqId: ctx.requestId, error: thrown });
      if (!(error instanceof HttpError)) logger.error('unexpected error', { reqId: ctx.requestId, err: error });
      else if (error.code === 'rate_limited') metrics?.rateLimited.inc();
      if (res.headersSent) {
        res.destroy();
        count(res.statusCode);
        return;
      }
      // Once draining, a request that was already in flight still ends its connection.
      if (draining) res.setHeader('connection', 'close');
      sendProblem(req, res, error, ctx.path, ctx.requestId, corsHeaders);
      finish(res.statusCode);
    };
    const succeed = (reply: Reply): void => {
      if (draining) res.setHeader('connection', 'close');
      if (metrics !== null && reply.headers?.['idempotent-replayed'] !== undefined) metrics.idempotentReplays.inc();
      sendReply(req, res, reply, ctx.requestId, corsHeaders);
      finish(reply.status);
    };
    try {
      const reply = route(ctx, target, res, remoteAddress, match, known);
      if (reply instanceof Promise) reply.then(succeed, fail);
      else succeed(reply);
    } catch (error) {
      fail(error);
    }
  }) as App;

  return Object.assign(app, {
    drain: () => {
      draining = true;
    },
    routes: router.routes(),
    logger,
    metrics,
  });
}

// The service's own check for its mode (null when off); each kind of credential is one implementation of CredentialCheck.
function credentialCheckFor(config: Config, storage: Storage, metrics: ServiceMetrics | null, logger: Logger): (CredentialCheck & Partial<KeyCheck>) | null {
  if (config.auth === 'off') return null;
  if (config.auth === 'keys') return createKeyCheck({ find: (id) => storage.keys.findById(id), onLookup: (result) => metrics?.apiKeyLookups.inc(result) });
  // The JWKS is fetched at most once per 30 s, so every failure is worth its line.
  const onKeysUnavailable = (error: Error): void => logger.warn('access-token keys could not be fetched; tokens signed by keys already held still work', { reason: error.message });
  return createTokenCheck(config.jwt, { requestTimeoutMs: config.requestTimeoutMs, onKeysUnavailable });
}

// What each engine has to report: SQLite counts writes per group commit; PostgreSQL has no group
// commit (a histogram that never moved would look like "no writes"), and operators watch its pool.
function countStorage(metrics: ServiceMetrics, db: Database): void {
  if (!isPostgres(db)) return;
  metrics.registry.unregister('db_commit_batch_size');
  // Metrics reused for another server in the same process (a restart) report the newest pool.
  metrics.registry.unregister('db_pool_connections');
  metrics.registry.register(poolGauge(() => db.stats()));
}
