import type { DatabaseSync } from 'node:sqlite';
import type { ServiceMetrics } from '../metrics/service-metrics.ts';
import { callbackMetric } from '../metrics/registry.ts';
import { DEFAULT_POSTGRES_SQL_DIR, DEFAULT_SQL_DIR } from './migrations.ts';
import type { PostgresClient } from '../postgres/client.ts';
import { createPostgresStorage } from '../postgres/storage.ts';
import { createSqliteStorage } from '../sqlite/storage.ts';
import type { Storage } from './storage.ts';

/** A database the service runs on: a node:sqlite connection (openDatabase) or a PostgreSQL pool (openPostgres). */
export type Database = DatabaseSync | PostgresClient;

export function isPostgres(db: Database): db is PostgresClient {
  return 'engine' in db && db.engine === 'postgres';
}

/** The package's own migrations for the engine of `db`. */
export function defaultSqlDirFor(db: Database): string {
  return isPostgres(db) ? DEFAULT_POSTGRES_SQL_DIR : DEFAULT_SQL_DIR;
}

// PostgreSQL has no group commit to count; what operators watch instead is the pool.
function poolGauge(client: PostgresClient): ReturnType<typeof callbackMetric> {
  return callbackMetric({
    type: 'gauge',
    name: 'db_pool_connections',
    help: 'PostgreSQL pool connections by state (idle, busy), and callers waiting for one (waiting).',
    merge: 'sum',
    read: () => {
      const { total, idle, waiting } = client.stats();
      return [
        { labels: { state: 'idle' }, value: idle },
        { labels: { state: 'busy' }, value: total - idle },
        { labels: { state: 'waiting' }, value: waiting },
      ];
    },
  });
}

/** The Storage of `db`'s engine, reporting to `metrics` what that engine has to report. */
export function createStorage(db: Database, metrics: ServiceMetrics | null): Storage {
  if (isPostgres(db)) {
    // No group commit here: a histogram that would never move must not look like "no writes".
    metrics?.registry.unregister('db_commit_batch_size');
    metrics?.registry.register(poolGauge(db));
    return createPostgresStorage(db);
  }
  return createSqliteStorage(db, metrics === null ? {} : { onCommit: (size) => metrics.commitBatchSize.observe(size) });
}

/** Closes the connection or the pool (idempotent). */
export async function closeDatabase(db: Database): Promise<void> {
  if (isPostgres(db)) await db.end().catch(() => {});
  else if (db.isOpen) db.close();
}
