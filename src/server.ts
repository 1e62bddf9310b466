import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DatabaseSync } from 'node:sqlite';
import { type App, createApp } from './app.ts';
import type { Config } from './config.ts';
import { DatabaseMissingError, openDatabase, readSchemaVersionOf } from './sqlite/database.ts';
import { closeDatabase, type Database } from './db/engine.ts';
import { DEFAULT_POSTGRES_SQL_DIR, latestVersion } from './db/migrate.ts';
import type { PostgresClient } from './postgres/client.ts';
import { postgresSchemaVersion } from './postgres/migrate.ts';
import { openPostgres } from './postgres/open.ts';
import { answerClientError } from './http/client-error.ts';
import { overflowedInRequestLine, type ParseErrorDetails } from './http/head-overflow.ts';
import { startEventRetention } from './events/retention.ts';
import { createLogger, type Logger } from './log/logger.ts';
import { exposeMetrics, serviceMetricsFor } from './metrics/expose.ts';
import { startWebhookDeliveries } from './webhook-deliveries.ts';
import type { Resource } from './resources/resource.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';

/** A listening service. */
export interface RunningServer {
  url: string;
  server: Server;
  app: App;
  /** `http://host:port/metrics` when this process serves SVC_METRICS_PORT, else null. */
  metricsUrl: string | null;
  /**
   * Graceful stop: refuse new work, let in-flight requests finish (at most SVC_SHUTDOWN_TIMEOUT_MS),
   * then close what startServer opened; a database or metrics passed in stay open.
   */
  close(): Promise<void>;
}

/** The database is missing or not at this build's schema; the message says what to run. */
export class SchemaNotReadyError extends Error {
  override name = 'SchemaNotReadyError';
}

const ADVICE = 'run `node bin/migrate.js` (or `npm run migrate`) first';

/** Opens the SQLite database, refusing one that is missing or not fully migrated; never creates or alters it. */
export function openMigratedDatabase(config: Config, sqlDir?: string): DatabaseSync {
  const advice = ADVICE;
  let current: number;
  try {
    // Read-only first: opening for writing would convert an empty or non-WAL file before we refuse it.
    current = readSchemaVersionOf(config.dbPath);
  } catch (error) {
    const reason = error instanceof DatabaseMissingError ? error.message : `database ${config.dbPath} cannot be read: ${(error as Error).message}`;
    throw new SchemaNotReadyError(`${reason}; ${advice}`);
  }
  const expected = latestVersion(sqlDir);
  if (current !== expected) {
    throw new SchemaNotReadyError(`database ${config.dbPath} is at schema version ${current}, this build needs ${expected}; ${advice}`);
  }
  return openDatabase(config.dbPath, { durability: config.durability });
}

/**
 * Opens a pool on SVC_DATABASE_URL and checks the schema version once, refusing (SchemaNotReadyError)
 * a database at another version; never creates or alters it. An unreachable server is an error too:
 * the process stops, and whatever supervises it starts it again.
 */
export async function openMigratedPostgres(config: Config, sqlDir = DEFAULT_POSTGRES_SQL_DIR): Promise<PostgresClient> {
  const client = openPostgres(config.databaseUrl, { poolSize: config.dbPoolSize, requestTimeoutMs: config.requestTimeoutMs });
  try {
    const current = await postgresSchemaVersion(client);
    const expected = latestVersion(sqlDir);
    if (current !== expected) {
      throw new SchemaNotReadyError(`database ${client.redactedUrl} is at schema version ${current}, this build needs ${expected}; ${ADVICE}`);
    }
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
}

/** The database SVC_DATABASE_URL (PostgreSQL) or SVC_DB_PATH (SQLite) names, checked to be migrated. */
export async function openServiceDatabase(config: Config): Promise<Database> {
  return config.databaseUrl === '' ? openMigratedDatabase(config) : openMigratedPostgres(config);
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

// Undoes one thing startServer opened itself.
type Release = () => void | Promise<void>;

// Records how to release what startServer opened, and hands it back.
function opened<T>(releases: Release[], value: T, release: (value: T) => void | Promise<void>): T {
  releases.push(() => release(value));
  return value;
}

// Newest first, as things depend on what was opened before them; each is released once, and one
// that fails does not keep the others open (the first failure is passed on).
async function releaseAll(releases: Release[]): Promise<void> {
  const failures: unknown[] = [];
  for (const release of releases.splice(0).reverse()) await Promise.resolve().then(release).catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

// node:http reports a request target over its head limit as a header overflow too; answerClientError
// answers HPE_URI_TOO_LONG with 414 uri_too_long, and a true header overflow with 431.
function answerParseError(error: Error & ParseErrorDetails & { code?: string }, socket: Duplex): void {
  if (error.code === 'HPE_HEADER_OVERFLOW' && overflowedInRequestLine(error)) error.code = 'HPE_URI_TOO_LONG';
  answerClientError(error, socket);
}

function createHttpServer(config: Config, app: App): Server {
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      // The app refuses a missing Host itself, with a problem document and the security headers.
      requireHostHeader: false,
    },
    app,
  );
  server.maxConnections = config.maxConnections;
  server.on('clientError', answerParseError);
  // Expect: 100-continue is only answered when the announced body fits, so an oversized one is
  // refused (413) before the client sends it.
  server.on('checkContinue', (req, res) => {
    if (!(Number(req.headers['content-length']) > config.bodyLimitBytes)) res.writeContinue();
    app(req, res);
  });
  return server;
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

// Stops listening at once, dropping any connection already made (start-up failed after listen).
function stopListening(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}

/** What an embedding program may hand startServer instead of letting it make its own; it stays the caller's. */
export interface StartServerOptions {
  /** Where lines go; by default a logger on stdout at SVC_LOG_LEVEL. */
  logger?: Logger;
  /** A migrated database to serve; by default startServer opens (and later closes) the one config names. */
  db?: Database;
  /** What to count in (null: nothing); by default its own when SVC_METRICS_PORT is set, closed by close(). */
  metrics?: ServiceMetrics | null;
  /** The resources to serve (createApp's `resources`); src/registry.ts's by default. */
  resources?: readonly Resource[];
}

/**
 * Starts the HTTP service on a migrated database; resolves once it listens. It closes exactly what it
 * opened (the database it opened from `config`, the metrics it created, its listeners), on every path:
 * when it cannot listen, when the metrics listener cannot, and in close(). A database, metrics or
 * logger passed in are the caller's: left open and usable, whatever happens.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const releases: Release[] = [];
  try {
    const db = options.db ?? opened(releases, await openServiceDatabase(config), closeDatabase);
    const metrics = options.metrics !== undefined ? options.metrics : opened(releases, serviceMetricsFor(config), (own) => own?.close());
    const app = createApp({ db, config, logger, metrics, ...(options.resources === undefined ? {} : { resources: options.resources }) });
    // Stopped before the database closes (releases run newest first).
    opened(releases, startEventRetention(app, { logger }), (retention) => retention.stop());
    const server = createHttpServer(config, app);
    await listen(server, config);
    const exposed = await exposeMetrics(config, metrics).catch(async (error: unknown): Promise<never> => {
      await stopListening(server);
      throw error;
    });
    const deliveries = startWebhookDeliveries({ db, config, logger, metrics, resources: app.resources, versions: app.versions });
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= Promise.all([shutdown(server, app, config.shutdownTimeoutMs), deliveries.stop(config.shutdownTimeoutMs)])
        .then(() => exposed.close())
        .then(() => releaseAll(releases));
      return closing;
    };
    return { url: urlOf(server), server, app, metricsUrl: exposed.url, close };
  } catch (error) {
    // The start-up failure is what the caller needs to hear about, not a failure to undo it.
    await releaseAll(releases).catch(() => {});
    throw error;
  }
}

// Refuses new work, lets requests in flight finish, and closes what is left after `timeoutMs`.
async function shutdown(server: Server, app: App, timeoutMs: number): Promise<void> {
  app.drain();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}
