// The package's public API (docs/embedding.md): what `import … from 'svc-http-sqlite'` gives an embedding program.
// Anything not exported here is internal and may change without notice.

/** The request listener for any `node:http` server, and its options. */
export { type App, type AppOptions, createApp } from './app.ts';
/** The resources the service serves, and how a resource is described (docs/extending.md): createApp's `resources` takes more. */
export { RESOURCES } from './registry.ts';
export { type ChangeRule, describeResource, type EventNumbers, type FieldTable, type Refusal as ChangeRefusal, type Resource, type ResourceSpec, type Stored } from './resources/resource.ts';
export { choiceField, type Field, integerField, objectField, textField } from './resources/fields.ts';
/** Settings from SVC_* variables, validated; ConfigError names the first bad one. */
export { type AuthMode, type Config, ConfigError, type Durability, loadConfig, type LogLevel } from './config.ts';
/** A SQLite database in WAL mode with the pragmas the service relies on (`:memory:` works). */
export { DatabaseMissingError, openDatabase, type OpenOptions, schemaVersion } from './sqlite/database.ts';
/** PostgreSQL instead (an optional peer dependency, `pg`): a pool on a `postgres://` URL, for createApp and migrate. */
export { type PostgresOpenOptions, PostgresClientMissingError, openPostgres } from './postgres/open.ts';
export type { PostgresClient as PostgresDatabase } from './postgres/client.ts';
/** Either engine's database, as createApp and migrate take it. */
export type { Database } from './db/engine.ts';
/** What storage raises when it cannot do the work now (answered 503 with Retry-After); a CredentialCheck may reject with them too. */
export { StorageBusyError, StorageUnavailableError } from './db/errors.ts';
/** Numbered migrations: `sql/` for SQLite (synchronous), `sql/postgres/` for PostgreSQL (a promise). */
export { DEFAULT_POSTGRES_SQL_DIR, DEFAULT_SQL_DIR, latestVersion, migrate, MigrationError, type MigrationResult } from './db/migrate.ts';
/** The pino-format JSON line logger the app writes its access log with. */
export { createLogger, type LogFields, type Logger, type LogSink } from './log/logger.ts';
/** Prometheus metrics: create them, pass them to createApp, serve `metrics.text()` on a listener of your own. */
export { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.ts';
/** A request listener that serves only GET/HEAD /metrics from a text source (404 elsewhere). */
export { metricsRequestListener, type MetricsSource } from './metrics/listener.ts';
/** The media type of a scrape, and the `route` label of requests that match no route. */
export { METRICS_CONTENT_TYPE } from './metrics/exposition.ts';
export { UNMATCHED_ROUTE } from './metrics/http-metrics.ts';
/** A family read at scrape time (e.g. a connection pool's state), added with `metrics.registry.register(…)`. */
export { callbackMetric, type CallbackMetricSpec, type Collector, type Registry, type Sample } from './metrics/registry.ts';
/** The OpenAPI 3.1 document the app serves, for merging into a host's own document: `buildOpenApiDocument(openApiOptionsFor(config, app.routes, app.resources, app.versions))` (the default version; a fifth argument names another). */
export { buildOpenApiDocument, type DocumentedAuth, type OpenApiOptions, openApiOptionsFor, type ServedRoute } from './openapi/document.ts';
/** Deletes expired events (SVC_EVENTS_RETENTION) in the background of an app: startServer runs it; an embedder of createApp alone starts it (docs/embedding.md). */
export { type EventRetention, type RetentionOptions, startEventRetention } from './events/retention.ts';
/** The whole service on its own listener: resolves once listening, with a graceful close(). */
export { openMigratedDatabase, openMigratedPostgres, type RunningServer, SchemaNotReadyError, startServer } from './server.ts';
/** API keys (SVC_AUTH=keys): make, list, read and revoke them on a database of either engine, as bin/keys.js does. */
export { type ApiKeyRequest, ApiKeyValidationError, type ApiKeyVersionSettings, type ApiKeyView, createApiKey, getApiKey, listApiKeys, revokeApiKey } from './api-keys.ts';
/** The pattern of a key for secret scanners (docs/security.md, API keys). */
export { KEY_SCANNER_PATTERN } from './keys/format.ts';
/** Callers: the scopes, and the seam an embedding program's own kind of credential implements (AppOptions.credentials). */
export { Scope, type ScopeName } from './callers/scopes.ts';
export { type Caller, type CredentialCheck, type Identified, NOT_VALID, type Refusal, type RefusalReason, refused } from './callers/caller.ts';
/** Webhook deliveries for a program that uses createApp alone (startServer starts them by itself): `startWebhookDeliveries({ db, config })`, stopped with `stop()`. */
export { startWebhookDeliveries, type WebhookDeliveries, type WebhookDeliveriesOptions } from './webhook-deliveries.ts';
