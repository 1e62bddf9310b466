import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CredentialCheck } from './callers/caller.ts';
import type { Config } from './config.ts';
import { createStorage, type Database, defaultSqlDirFor, isPostgres, startEventSequencing, watchCommits } from './db/engine.ts';
import { signalCommits } from './db/commit-watch.ts';
import { latestVersion } from './db/migrate.ts';
import type { Storage } from './db/storage.ts';
import { eventCatalogue } from './events/catalogue.ts';
import { countingEvents } from './events/count.ts';
import type { EventRepository } from './events/repository.ts';
import { addEventRoutes } from './events/routes.ts';
import { liveStreamHandler } from './events/stream-handler.ts';
import { createEventUseCases } from './events/use-cases.ts';
import { parseTypes } from './events/validate.ts';
import { bearerTokenCheck } from './http/auth.ts';
import { createClientAddressResolver } from './http/client-address.ts';
import { createCors } from './http/cors.ts';
import { createPipeline, type RequestReport } from './http/pipeline.ts';
import { rateLimitGuard } from './http/rate-limit.ts';
import type { Handler } from './http/reply.ts';
import { type Access, createRouter } from './http/router.ts';
import { StreamAdmission } from './http/stream-admission.ts';
import { secretRedactor } from './http/secret-redaction.ts';
import type { WriteDeps } from './http/write-input.ts';
import { IdempotentWrites } from './idempotency/idempotent-write.ts';
import { createKeyCheck, type KeyCheck } from './keys/key-check.ts';
import { KeyIds } from './keys/key-ids.ts';
import { addKeyRoutes } from './keys/routes.ts';
import { createApiKeyUseCases } from './keys/use-cases.ts';
import { countStreamRefusals, createLiveEvents } from './events/live.ts';
import { createLogger, type Logger } from './log/logger.ts';
import { throttled } from './log/throttled.ts';
import { UNMATCHED_ROUTE } from './metrics/http-metrics.ts';
import { poolGauge } from './metrics/pool-gauge.ts';
import { EnumCounter } from './metrics/instruments.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';
import { addOpenApiRoutes } from './openapi/routes.ts';
import { addReadinessRoutes } from './readiness/routes.ts';
import { RESOURCES, VERSIONS } from './registry.ts';
import { repositoryOf } from './resources/repository.ts';
import type { Resource } from './resources/resource.ts';
import { addResourceRoutes } from './resources/routes.ts';
import { createResourceUseCases } from './resources/use-cases.ts';
import { createTokenCheck } from './tokens/token-check.ts';
import { addWebhookRoutes } from './webhooks/routes.ts';
import { createWebhookUseCases } from './webhooks/use-cases.ts';
import { committedTo, removedFrom, wroteTo } from './webhooks/wake.ts';
import { type ApiVersions, buildVersions } from './versions/api-versions.ts';
import type { VersionSpec } from './versions/model.ts';
import { negotiator } from './versions/negotiate.ts';
import { addVersionRoutes } from './versions/routes.ts';

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
  /** The resources served: src/registry.ts's by default; a test may serve one of its own. */
  resources?: readonly Resource[];
  /** The API versions served, oldest first: src/registry.ts's by default; a test may add one. */
  versions?: readonly VersionSpec[];
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
  /** The event feed's storage: what startEventRetention(app) deletes expired events from (docs/embedding.md). */
  readonly events: EventRepository;
  /** The resources served: what openApiOptionsFor and startWebhookDeliveries take. */
  readonly resources: readonly Resource[];
  /** The API versions served, and how each changes the newest's answers and requests. */
  readonly versions: ApiVersions;
}

/** Wires database → repositories → use cases → routes, and the request pipeline around them. */
export function createApp(options: AppOptions): App {
  const { db, config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = options.metrics ?? null;
  const resources = options.resources ?? RESOURCES;
  const versions = buildVersions(options.versions ?? VERSIONS, resources, { at: config.versions.sunsets, announcedAt: config.versions.sunsetsAnnouncedAt });
  const catalogue = eventCatalogue(resources);
  const shared = { eventRetentionMs: config.events.retentionMs, resources };
  // A commit that made webhook deliveries wakes this process's deliverers at once; one that may have
  // (PostgreSQL) wakes them unless they know no webhook is enabled.
  const hooks = { ...shared, onDeliveriesMade: () => wroteTo(db), onDeliveriesMaybeMade: () => committedTo(db) };
  const engine = createStorage(db, metrics === null ? hooks : { ...hooks, onCommit: (size) => metrics.commitBatchSize.observe(size) });
  const counted = metrics === null ? engine : countingEvents(engine, resources, countEventsIn(metrics, catalogue.names, catalogue.nameOf));
  const live = createLiveEvents(counted.events, catalogue, watchCommits(db), logger, metrics);
  // On PostgreSQL events are readable once positioned: this app's pool runs a candidate for the sequencer.
  startEventSequencing(db, sequencerFailed(logger));
  // Every commit wakes the live streams of this process and, through the engine, of the others.
  const storage = signalCommits(counted, live.committed);
  if (metrics !== null) countStorage(metrics, db);
  const writes: WriteDeps = { storage, idempotency: new IdempotentWrites(), bodyLimitBytes: config.bodyLimitBytes };
  const router = createRouter<Handler>();
  const ownCheck = options.credentials === undefined ? credentialCheckFor(config, storage, metrics, logger) : null;
  addReadinessRoutes(router, storage.readiness, latestVersion(options.sqlDir ?? defaultSqlDirFor(db)));
  const upgrades = { defaultCurrency: config.versions.defaultCurrency };
  for (const resource of resources) addResourceRoutes(router, resource, createResourceUseCases(resource, repositoryOf(storage.resources, resource)), writes, upgrades);
  const typesOf = (query: URLSearchParams) => parseTypes(catalogue, query.get('type'));
  addEventRoutes(router, createEventUseCases(storage.events), catalogue, liveStreamHandler({ feed: live.feed, events: storage.events, typesOf }));
  const servedVersions = (): string[] => versions.servedAt().map((view) => view.id);
  if (config.auth === 'keys') addKeyRoutes(router, createApiKeyUseCases(storage.keys), writes, { remember: (apiKey) => ownCheck?.remember?.(apiKey), servedVersions });
  const webhookOptions = { allowPrivate: config.webhooks.allowPrivate, events: catalogue, onDue: () => wroteTo(db), onRemoved: () => removedFrom(db), servedVersions };
  const webhookRules = { events: storage.events, retentionMs: config.events.retentionMs, versions };
  addWebhookRoutes(router, createWebhookUseCases(storage.webhooks, storage.webhookDeliveries, webhookRules), writes, webhookOptions);
  addVersionRoutes(router, versions, config.versions.defaultVersion);
  addOpenApiRoutes(router, config, resources, versions);
  const pipeline = createPipeline({
    router,
    logger,
    credentials: config.auth === 'off' ? null : (options.credentials ?? ownCheck),
    checkToken: config.apiToken === '' ? null : bearerTokenCheck(config.apiToken),
    limitRate: rateLimitGuard(config.rateLimit, config.rateLimitWindowS),
    cors: createCors(config.corsOrigins, router.methodsAt),
    clientAddressOf: createClientAddressResolver(config.trustProxy),
    report: metrics === null ? null : reportTo(metrics, versions),
    versions: negotiator(versions, config.versions.defaultVersion),
    redactUrl: secretRedactor([config.apiToken]),
    streams: new StreamAdmission(
      { perClient: config.events.streamsPerCaller, total: config.events.maxStreams },
      metrics === null ? undefined : countStreamRefusals(metrics),
    ),
  });
  return Object.assign((req: IncomingMessage, res: ServerResponse) => pipeline.listener(req, res), {
    drain: pipeline.drain,
    routes: router.routes(),
    logger,
    metrics,
    events: storage.events,
    resources,
    versions,
  });
}

// events_recorded_total, one series per event type of the resources served (registered afresh: metrics
// reused for another app in the same process count the newest one's types).
function countEventsIn(metrics: ServiceMetrics, names: readonly string[], nameOf: (type: number) => string): (type: number) => void {
  metrics.registry.unregister('events_recorded_total');
  const counter = metrics.registry.register(new EnumCounter('events_recorded_total', 'Events recorded with committed changes, by type.', 'type', names));
  return (type) => counter.inc(nameOf(type));
}

// The sequencer's lost connections (a database outage): a line every few seconds, as it tries again.
function sequencerFailed(logger: Logger): (error: Error) => void {
  return throttled<Error>(5_000, (error, heldBack) => logger.warn('event sequencer: connection lost; trying again', { reason: error.message, heldBack }));
}

// The pipeline's reports, counted in the service's metrics; api_requests_total has a series per version
// known and `unsupported`, never a value a client sent (registered afresh, as events_recorded_total).
function reportTo(metrics: ServiceMetrics, versions: ApiVersions): RequestReport {
  metrics.registry.unregister('api_requests_total');
  const labels = [...versions.all.map((view) => view.id), 'unsupported'];
  const apiRequests = metrics.registry.register(new EnumCounter('api_requests_total', 'Requests under /api answered, by the API version they were made in (unsupported: refused for it).', 'version', labels));
  return {
    started: () => metrics.http.started(),
    finished: (method, route, status, startedAt, version) => {
      metrics.http.finished(method, route ?? UNMATCHED_ROUTE, status, startedAt);
      if (version !== null) apiRequests.inc(version);
    },
    rateLimited: () => metrics.rateLimited.inc(),
    replayed: () => metrics.idempotentReplays.inc(),
    refused: (reason) => metrics.callersRefused.inc(reason),
  };
}

// The service's own check for its mode (null when off); each kind of credential is one implementation of CredentialCheck.
function credentialCheckFor(config: Config, storage: Storage, metrics: ServiceMetrics | null, logger: Logger): (CredentialCheck & Partial<KeyCheck>) | null {
  if (config.auth === 'off') return null;
  if (config.auth === 'keys') return keyCheckOn(storage, metrics);
  // The JWKS is fetched at most once per 30 s, so every failure is worth its line.
  const onKeysUnavailable = (error: Error): void => logger.warn('access-token keys could not be fetched; tokens signed by keys already held still work', { reason: error.message });
  return createTokenCheck(config.jwt, { requestTimeoutMs: config.requestTimeoutMs, onKeysUnavailable });
}

// The key check on `storage`, its database reads counted in the metrics.
function keyCheckOn(storage: Storage, metrics: ServiceMetrics | null): KeyCheck {
  const ids = new KeyIds({ idsAfter: (seq) => storage.keys.idsAfter(seq), onRefresh: (result) => metrics?.apiKeyIdRefreshes.inc(result) });
  return createKeyCheck({ find: (id) => storage.keys.findById(id), onLookup: (result) => metrics?.apiKeyLookups.inc(result), ids });
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
