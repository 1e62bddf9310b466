import type { DatabaseSync } from 'node:sqlite';
import { LOCK_WAIT_MS, retryingWhileBusy } from './busy.ts';
import { createSqliteEventRepository } from './events.ts';
import { createSqliteIdempotencyRepository } from './idempotency.ts';
import { createSqliteApiKeyRepository } from './keys.ts';
import { createSqliteProductRepository } from './products.ts';
import { createSqliteReadinessRepository } from './readiness.ts';
import { createSqliteWorkspaceRepository } from './workspaces.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import { DEFAULT_EVENT_RETENTION_MS } from '../events/model.ts';
import { WriteBatcher } from './write-batcher.ts';

export interface SqliteStorageOptions {
  /** Called after each group commit with the number of writes it held. */
  onCommit?: (size: number) => void;
  /** How long a read or a write waits for another connection's lock before StorageBusyError (LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** SVC_EVENTS_RETENTION in milliseconds (168h by default). */
  eventRetentionMs?: number;
}

/**
 * Storage on one node:sqlite connection, which needs no busy timeout (openDatabase sets none).
 *
 * Reads and the write transactions share the connection, and a read never sees an open
 * transaction, because nothing but the batch's own works runs while one is open: the WriteBatcher
 * begins each batch in a macrotask of its own (so no other request's code is queued behind it),
 * commits it before that macrotask ends (cutting off any work that would wait for a timer or I/O,
 * and revoking its repositories), and settles the callers only after COMMIT. A read runs from a
 * request's callback or after its write has settled, never in between.
 *
 * Reads never need the write lock (WAL), so another process's lock does not stop them. A read meets
 * SQLITE_BUSY only in the moments another connection holds the file exclusively (WAL recovery after
 * a crash, the last connection's checkpoint as it closes); it is tried again on timers, never
 * blocking, like a write, and StorageBusyError after `lockWaitMs`.
 */
export function createSqliteStorage(db: DatabaseSync, options: SqliteStorageOptions = {}): Storage {
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  const repositories: Repositories = {
    products: createSqliteProductRepository(db),
    workspaces: createSqliteWorkspaceRepository(db),
    idempotency: createSqliteIdempotencyRepository(db),
    keys: createSqliteApiKeyRepository(db),
  };
  const writes = new WriteBatcher(db, repositories, { lockWaitMs, ...(options.onCommit === undefined ? {} : { onCommit: options.onCommit }) });
  const events = createSqliteEventRepository(db, {
    retentionMs: options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS,
    // Retention's deletions share the group commit: one writer per connection, and one short step.
    write: (work) => writes.run(work),
  });
  return {
    engine: 'sqlite',
    products: retryingWhileBusy(repositories.products, lockWaitMs),
    workspaces: retryingWhileBusy(repositories.workspaces, lockWaitMs),
    readiness: retryingWhileBusy(createSqliteReadinessRepository(db), lockWaitMs),
    keys: retryingWhileBusy(repositories.keys, lockWaitMs),
    events: retryingWhileBusy(events, lockWaitMs),
    transaction: (work) => writes.run(work),
    // One statement shares the group commit like any transaction: one fsync for the whole batch.
    singleWrite: (work) => writes.run(work),
  };
}
