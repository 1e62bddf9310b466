import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.ts';
import { latestVersion } from './db/migrate.ts';
import { createStorage, type Database, defaultSqlDirFor, isPostgres } from './db/engine.ts';
import { StorageBusyError, StorageUnavailableError } from './db/errors.ts';
import { logRequest } from './http/access-log.ts';
import { bearerTokenCheck } from './http/auth.ts';
import { createClientAddressResolver } from './http/client-address.ts';
import type { WriteDeps } from './http/write-input.ts';
import { HttpError } from './http/errors.ts';
import { checkHostHeader } from './http/host-header.ts';
import type { Handler, Reply, RequestContext } from './http/reply.ts';
import { requestIdFrom } from './http/request-id.ts';
import { answerServerWide, parseRequestTarget, type RequestTarget, servedMethods } from './http/request-target.ts';
import { asClientError } from './http/problem.ts';
import { sendProblem, sendReply } from './http/respond.ts';
import { rateLimitGuard } from './http/rate-limit.ts';
import { createRouter, type RouteMatch } from './http/router.ts';
import { IdempotentWrites } from './idempotency/idempotent-write.ts';
import { createLogger, type Logger } from './log/logger.ts';
import { throttled } from './log/throttled.ts';
import { UNMATCHED_ROUTE } from './metrics/http-metrics.ts';
import { poolGauge } from './metrics/pool-gauge.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';
import { openApiOptionsFor } from './openapi/document.ts';
import { addOpenApiRoutes } from './openapi/routes.ts';
import { addProductRoutes } from './products/routes.ts';
import { createProductUseCases } from './products/use-cases.ts';
import { addReadinessRoutes } from './readiness/routes.ts';
import { addWorkspaceRoutes } from './workspaces/routes.ts';
import { createWorkspaceUseCases } from './workspaces/use-cases.ts';

export interface AppOptions {
  /** A node:sqlite database (openDatabase) or a PostgreSQL pool (openPostgres), migrated. */
  db: Database;
  config: Config;
  logger?: Logger;
  /** The folder of migrations whose newest number readiness expects; the package's own for the engine by default. */
  sqlDir?: string;
  /** What to count requests, commits, replays and 429s in (createServiceMetrics()); nothing is counted without. */
  metrics?: ServiceMetrics | null;
}

/** A `node:http` request listener with the service's lifecycle controls. */
export interface App {
  (req: IncomingMessage, res: ServerResponse): void;
  /** From now on, answer every request 503 with `Connection: close` (graceful shutdown). */
  drain(): void;
  /** Every method and path pattern served (HEAD aside). */
  readonly routes: readonly { method: string; pattern: string }[];
  readonly logger: Logger;
  /** The metrics given at creation (serve `metrics.text()` on a listener of your own), or null. */
  readonly metrics: ServiceMetrics | null;
}

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
  addReadinessRoutes(router, storage.readiness, latestVersion(options.sqlDir ?? defaultSqlDirFor(db)));
  addProductRoutes(router, createProductUseCases(storage.products), writes);
  addWorkspaceRoutes(router, createWorkspaceUseCases(storage.workspaces), writes);
  addOpenApiRoutes(router, openApiOptionsFor(config));
  const allowed = servedMethods(router.routes());
  const checkToken = config.apiToken === '' ? null : bearerTokenCheck(config.apiToken);
  const clientAddressOf = createClientAddressResolver(config.trustProxy);
  const limitRate = rateLimitGuard(config.rateLimit, config.rateLimitWindowS);
  let draining = false;
  // Each such request is answered 503 and access-logged; this says why, a line every few seconds.
  const storageTrouble = throttled<{ reqId: string; error: Error }>(5_000, ({ reqId, error }, heldBack) => {
    logger.warn('database unavailable or busy; answering 503', { reqId, reason: error.message, heldBack });
  });

  // The match is made before the checks (it is pure), so even a refused request is counted under its route.
  function route(ctx: RequestContext, target: RequestTarget, res: ServerResponse, clientAddress: string, match: RouteMatch<Handler>): Reply | Promise<Reply> {
    if (draining) throw new HttpError('unavailable', { detail: 'The service is shutting down.', headers: { connection: 'close' } });
    checkHostHeader(ctx.req);
    // Readiness probes come from orchestrators and load balancers, not clients: never limited.
    if (limitRate !== null && ctx.path !== '/api/ping') limitRate(res, clientAddress);
    if (target.form !== 'origin') return answerServerWide(target, ctx.method, allowed);
    if (match.kind === 'not_found') throw new HttpError('not_found');
    if (match.kind === 'method_not_allowed') {
      throw new HttpError('method_not_allowed', { headers: { allow: match.allow.join(', ') } });
    }
    if (checkToken !== null && WRITE_METHODS.has(ctx.method)) checkToken(ctx.req.headers.authorization);
    return match.handler({ ...ctx, params: match.params });
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
    };
    const remoteAddress = clientAddressOf(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const match = router.match(ctx.method, ctx.path);
    const count = (status: number): void => {
      metrics?.http.finished(ctx.method, match.kind === 'not_found' ? UNMATCHED_ROUTE : match.pattern, status, startedAt);
    };
    const finish = (status: number): void => {
      count(status);
      logRequest(logger, { requestId: ctx.requestId, method: ctx.method, url: target.logged, remoteAddress, statusCode: status, startedAt });
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
      sendProblem(req, res, error, ctx.path, ctx.requestId);
      finish(res.statusCode);
    };
    const succeed = (reply: Reply): void => {
      if (draining) res.setHeader('connection', 'close');
      if (metrics !== null && reply.headers?.['idempotent-replayed'] !== undefined) metrics.idempotentReplays.inc();
      sendReply(req, res, reply, ctx.requestId);
      finish(reply.status);
    };
    try {
      const reply = route(ctx, target, res, remoteAddress, match);
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

// What each engine has to report: SQLite counts writes per group commit; PostgreSQL has no group
// commit (a histogram that never moved would look like "no writes"), and operators watch its pool.
function countStorage(metrics: ServiceMetrics, db: Database): void {
  if (!isPostgres(db)) return;
  metrics.registry.unregister('db_commit_batch_size');
  // Metrics reused for another server in the same process (a restart) report the newest pool.
  metrics.registry.unregister('db_pool_connections');
  metrics.registry.register(poolGauge(() => db.stats()));
}
