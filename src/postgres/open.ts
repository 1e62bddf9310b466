import { createRequire } from 'node:module';
import type { PostgresClient } from './client.ts';
import { keepListening } from './notifications.ts';
import { type PgModule, pgClient } from './pg-client.ts';
import { createSequencer } from './sequencer.ts';
import { databaseUrlProblem, redactDatabaseUrl } from '../db/database-url.ts';

/** The PostgreSQL client library is not installed; the message says what to install. */
export class PostgresClientMissingError extends Error {
  override name = 'PostgresClientMissingError';
}

export interface PostgresOpenOptions {
  /** Connections in the pool (SVC_DB_POOL_SIZE). */
  poolSize?: number;
  /** The longest a request may take (SVC_REQUEST_TIMEOUT_MS); the database timeouts are fractions of it. */
  requestTimeoutMs?: number;
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, Math.round(value)));

// `pg` is an optional peer dependency: resolved from the program that installed this package,
// and only when PostgreSQL is used, so an install for SQLite never needs it.
function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)('pg') as PgModule;
  } catch (error) {
    if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new PostgresClientMissingError('SVC_DATABASE_URL is set but the PostgreSQL client is not installed: run `npm install pg`');
  }
}

/**
 * Opens a pool on the PostgreSQL database at `url` (connections are made when first needed). The
 * timeouts keep every database call well inside the request timeout: connecting or waiting for a
 * connection at most a sixth of it (5 s by default), a statement a third (10 s), and the client
 * gives up on a silent connection, or on a whole transaction, a sixth (at most 1 s) after that.
 */
export function openPostgres(url: string, options: PostgresOpenOptions = {}): PostgresClient {
  const problem = databaseUrlProblem(url);
  if (problem !== null) throw new TypeError(`not a PostgreSQL URL (${problem}): ${redactDatabaseUrl(url)}`);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  // Fractions of the request timeout with small floors, so even a very short one is kept:
  // connect + statement + grace is at most two thirds of it.
  const statementTimeoutMs = clamp(requestTimeoutMs / 3, 100, 10_000);
  const graceMs = clamp(requestTimeoutMs / 6, 50, 1_000);
  const { Pool, Client } = loadPg();
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: clamp(requestTimeoutMs / 6, 50, 5_000),
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + graceMs,
    idle_in_transaction_session_timeout: statementTimeoutMs * 2,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'svc-http-sqlite',
  });
  const client = pgClient(pool, redactDatabaseUrl(url), statementTimeoutMs + graceMs);
  // Live streams' wake-ups and the sequencer's candidate: a connection of its own each, outside the
  // pool, without statement timeouts.
  const connectOwn = (role: string) => () =>
    new Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5_000, application_name: `svc-http-sqlite-${role}` });
  const sequencer = createSequencer(connectOwn('sequencer'));
  const endPool = client.end;
  return Object.assign(client, {
    listen: (channel: string, onNotify: () => void) => keepListening(connectOwn('listen'), channel, onNotify),
    sequencer,
    // The candidate's session ends first: its lock goes to another process's candidate at once.
    end: () => sequencer.stop().then(endPool),
  });
}
