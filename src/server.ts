import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { createLogger, type Logger } from './log/logger.ts';
import { exposeMetrics, serviceMetricsFor } from './metrics/expose.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';

/** A listening service. */
export interface RunningServer {
  url: string;
  server: Server;
  app: App;
  /** `http://host:port/metrics` when this process serves SVC_METRICS_PORT, else null. */
  metricsUrl: string | null;
  /** Graceful stop: refuse new work, let in-flight requests finish (bounded), close the database. */
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

/** Starts the HTTP service on a migrated database; resolves once it listens. */
export async function startServer(
  config: Config,
  options: { logger?: Logger; db?: Database; metrics?: ServiceMetrics | null } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openServiceDatabase(config));
  const metrics = options.metrics === undefined ? serviceMetricsFor(config) : options.metrics;
  const app = createApp({ db, config, logger, metrics });
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
  server.on('clientError', answerClientError);
  // Expect: 100-continue is only answered when the announced body fits, so an oversized one is
  // refused (413) before the client sends it.
  server.on('checkContinue', (req, res) => {
    if (!(Number(req.headers['content-length']) > config.bodyLimitBytes)) res.writeContinue();
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = urlOf(server);
  const exposed = await exposeMetrics(config, metrics).catch(async (error: unknown): Promise<never> => {
    // The metrics port is taken: undo what started, so an embedding program is left as it was.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    metrics?.close();
    if (options.db === undefined) await closeDatabase(db);
    throw error;
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= shutdown(server, app, db, config.shutdownTimeoutMs).then(() => exposed.close());
    return closing;
  };
  return { url, server, app, metricsUrl: exposed.url, close };
}

async function shutdown(server: Server, app: App, db: Database, timeoutMs: number): Promise<void> {
  app.drain();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
  await closeDatabase(db);
}
