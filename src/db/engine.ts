import type { DatabaseSync } from 'node:sqlite';
import { DEFAULT_POSTGRES_SQL_DIR, DEFAULT_SQL_DIR } from './migrations.ts';
import type { PostgresClient } from '../postgres/client.ts';
import { watchPostgresCommits } from '../postgres/commit-watch.ts';
import { createPostgresStorage } from '../postgres/storage.ts';
import { watchSqliteCommits } from '../sqlite/commit-watch.ts';
import { createSqliteStorage } from '../sqlite/storage.ts';
import { type CommitWatch, signalCommits } from './commit-watch.ts';
import type { Storage } from './storage.ts';
import type { Resource } from '../resources/resource.ts';

/** A database the service runs on: a node:sqlite connection (openDatabase) or a PostgreSQL pool (openPostgres). */
export type Database = DatabaseSync | PostgresClient;

export function isPostgres(db: Database): db is PostgresClient {
  return 'engine' in db && db.engine === 'postgres';
}

/** The package's own migrations for the engine of `db`. */
export function defaultSqlDirFor(db: Database): string {
  return isPostgres(db) ? DEFAULT_POSTGRES_SQL_DIR : DEFAULT_SQL_DIR;
}

/** What storage reports as it works, for whoever counts it (src/app.ts wires the metrics). */
export interface StorageHooks {
  /** After each group commit (SQLite), with the number of writes it held. */
  onCommit?: (size: number) => void;
  /** SVC_EVENTS_RETENTION in milliseconds: events older are never read (168h by default). */
  eventRetentionMs?: number;
  /** The resources whose repositories the storage holds (src/registry.ts, in the app); none by default. */
  resources?: readonly Resource[];
  /** After a commit that made webhook deliveries (SQLite, whose fan-out is a statement it runs). */
  onDeliveriesMade?: () => void;
  /** After every commit on PostgreSQL, whose fan-out is a trigger: deliveries were made if a webhook took the events. */
  onDeliveriesMaybeMade?: () => void;
}

/** The Storage of `db`'s engine. */
export function createStorage(db: Database, hooks: StorageHooks = {}): Storage {
  const shared = {
    ...(hooks.eventRetentionMs === undefined ? {} : { eventRetentionMs: hooks.eventRetentionMs }),
    ...(hooks.resources === undefined ? {} : { resources: hooks.resources }),
  };
  const { onCommit, onDeliveriesMade, onDeliveriesMaybeMade } = hooks;
  if (isPostgres(db)) {
    const storage = createPostgresStorage(db, shared);
    return onDeliveriesMaybeMade === undefined ? storage : signalCommits(storage, onDeliveriesMaybeMade);
  }
  return createSqliteStorage(db, { ...shared, ...(onCommit === undefined ? {} : { onCommit }), ...(onDeliveriesMade === undefined ? {} : { onDeliveriesMade }) });
}

/** Closes the connection or the pool (idempotent). */
export async function closeDatabase(db: Database): Promise<void> {
  if (isPostgres(db)) await db.end().catch(() => {});
  else if (db.isOpen) db.close();
}

/** How the processes serving `db` learn of each other's commits (live streams' wake-ups, docs/events.md). */
export function watchCommits(db: Database): CommitWatch {
  return isPostgres(db) ? watchPostgresCommits(db) : watchSqliteCommits(db);
}

/**
 * Starts what makes new events readable where the engine needs it: on PostgreSQL, this pool's
 * candidate for the event sequencer, which runs until the pool ends (db.end()). SQLite needs nothing.
 */
export function startEventSequencing(db: Database, onFailure: (error: Error) => void): void {
  if (isPostgres(db)) db.sequencer?.start(onFailure);
}
