import { createHash } from 'node:crypto';
import { StorageUnavailableError } from '../db/errors.ts';
import type { PoolStats, PostgresClient, SqlRunner } from './client.ts';
import { isServerUnavailable, sqlState } from './errors.ts';
import type { PgSessionClient } from './sequencer.ts';

// The part of node-postgres (`pg`) this adapter uses; declared here so the package needs neither
// `pg` nor its types to build. `pg` itself is loaded only when a PostgreSQL URL is opened.
interface QueryResult {
  rows: unknown[][];
  rowCount: number | null;
}
interface QueryConfig {
  text: string;
  values?: readonly unknown[];
  rowMode: 'array';
  name?: string;
}
interface Queryable {
  query(config: QueryConfig | string): Promise<QueryResult>;
}
interface PoolClient extends Queryable {
  release(destroy?: boolean | Error): void;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
  off(event: 'error', listener: (error: Error) => void): void;
}
export interface PgPool extends Queryable {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
export interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  Client: new (config: Record<string, unknown>) => PgSessionClient;
}

// Errors that mean the server could not be reached or the connection broke, as node-postgres and
// Node report them (they carry no SQLSTATE).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const CONNECTION_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable|connection timeout/i;

/** PostgreSQL's own errors keep their SQLSTATE; "cannot reach it now" of any kind becomes StorageUnavailableError. */
function normalize(error: unknown): unknown {
  if (isServerUnavailable(error)) return new StorageUnavailableError(`PostgreSQL cannot serve now: ${(error as Error).message}`);
  if (sqlState(error) !== undefined || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (NETWORK_CODES.has(String(code)) || CONNECTION_MESSAGES.test(error.message)) {
    return new StorageUnavailableError(`PostgreSQL cannot be reached: ${error.message}`);
  }
  return error;
}

// Named statements are parsed and planned once per connection, then only bound and run: a third
// less client and server time per query (bench/README.md, "PostgreSQL client choice").
const names = new Map<string, string>();
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `svc_${createHash('sha1').update(sql).digest('base64url').slice(0, 16)}`;
    names.set(sql, name);
  }
  return name;
}

function runnerOn(db: Queryable): SqlRunner {
  const query = async (sql: string, params: readonly unknown[]): Promise<QueryResult> => {
    try {
      return await db.query({ text: sql, values: params, rowMode: 'array', name: statementName(sql) });
    } catch (error) {
      throw normalize(error);
    }
  };
  return {
    rows: async (sql, params = []) => (await query(sql, params)).rows,
    run: async (sql, params = []) => (await query(sql, params)).rowCount ?? 0,
    async script(sql) {
      try {
        await db.query(sql);
      } catch (error) {
        throw normalize(error);
      }
    },
  };
}

// A connection that broke or went silent is discarded without a ROLLBACK (the server rolls back the
// transaction of a closed connection): on a silent server a ROLLBACK would wait a whole query timeout
// more, past the request timeout. A ROLLBACK that fails discards the connection too. Returns the
// reason to discard it, or undefined to reuse it.
async function rollBack(connection: PoolClient, cause: unknown): Promise<Error | undefined> {
  if (cause instanceof StorageUnavailableError) return cause;
  try {
    await connection.query('ROLLBACK');
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

/**
 * A PostgresClient on a node-postgres pool; `redactedUrl` names it in messages. A transaction still
 * running `transactionTimeoutMs` after it began has its connection closed (the server rolls it back),
 * so however many statements it waits on, it ends within that time with StorageUnavailableError.
 */
export function pgClient(pool: PgPool, redactedUrl: string, transactionTimeoutMs: number): PostgresClient {
  // An idle connection that breaks (the server restarted) must not crash the process: the pool
  // drops it and opens a new one when next needed.
  pool.on('error', () => {});
  return {
    engine: 'postgres',
    redactedUrl,
    ...runnerOn(pool),
    async transaction(work) {
      let connection: PoolClient;
      try {
        connection = await pool.connect();
      } catch (error) {
        throw normalize(error);
      }
      // The pool listens for errors of idle connections only: one that breaks between two statements
      // of this transaction would be an uncaught 'error' event. Its next statement fails instead.
      const ignore = (): void => {};
      connection.on('error', ignore);
      let broken: Error | undefined;
      const deadline = setTimeout(() => void connection.end().catch(ignore), transactionTimeoutMs);
      try {
        const tx = runnerOn(connection);
        await tx.script('BEGIN');
        const result = await work(tx);
        await tx.script('COMMIT');
        return result;
      } catch (error) {
        broken = await rollBack(connection, error);
        throw error;
      } finally {
        clearTimeout(deadline);
        connection.off('error', ignore);
        connection.release(broken ?? false);
      }
    },
    stats: (): PoolStats => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    end: () => pool.end(),
  };
}
