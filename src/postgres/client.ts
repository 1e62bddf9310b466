import type { Sequencer } from './sequencer.ts';

/** Runs statements on one connection (or any, outside a transaction); rows come back as arrays in select order. */
export interface SqlRunner {
  /** The rows of a statement with `$1…` parameters. */
  rows(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  /** Runs a statement with `$1…` parameters; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs a script of several statements without parameters (a migration file). */
  script(sql: string): Promise<void>;
}

/** How many connections a pool holds, and how many callers wait for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * What the service needs of a PostgreSQL client library: a pool, statements on it, and transactions
 * on one connection. One small adapter (pg-client.ts) maps a library onto it, so nothing else
 * depends on the library. Connection failures and timeouts reject with StorageUnavailableError; an
 * error PostgreSQL reports keeps its SQLSTATE in `code`.
 */
export interface PostgresClient extends SqlRunner {
  readonly engine: 'postgres';
  /** The connection URL with its password hidden. */
  readonly redactedUrl: string;
  /** Runs `work` between BEGIN and COMMIT on one connection; rolls back when it rejects. */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  stats(): PoolStats;
  /**
   * Keeps a connection of its own LISTENing on `channel`, calling `onNotify` for each notification and
   * after each reconnection; returns how to stop. Absent: the client cannot listen (others poll).
   */
  listen?(channel: string, onNotify: () => void): () => void;
  /**
   * This pool's candidate for the event sequencer (src/postgres/sequencer.ts), started by createApp and
   * stopped by end(). Absent: the client cannot run one (another process's must position events).
   */
  readonly sequencer?: Sequencer;
  /** Closes every connection; later calls reject. */
  end(): Promise<void>;
}
