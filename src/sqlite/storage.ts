import type { DatabaseSync } from 'node:sqlite';
import { createSqliteIdempotencyRepository } from './idempotency.ts';
import { createSqliteApiKeyRepository } from './keys.ts';
import { createSqliteProductRepository } from './products.ts';
import { createSqliteReadinessRepository } from './readiness.ts';
import { createSqliteWorkspaceRepository } from './workspaces.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import { WriteBatcher } from './write-batcher.ts';

export interface SqliteStorageOptions {
  /** Called after each group commit with the number of writes it held. */
  onCommit?: (size: number) => void;
}

/**
 * Storage on one node:sqlite connection. Reads and the write transactions share it: a batch of
 * writes runs from BEGIN to COMMIT within one event-loop turn (see WriteBatcher), so a read never
 * sees an open transaction.
 */
export function createSqliteStorage(db: DatabaseSync, options: SqliteStorageOptions = {}): Storage {
  const repositories: Repositories = {
    products: createSqliteProductRepository(db),
    workspaces: createSqliteWorkspaceRepository(db),
    idempotency: createSqliteIdempotencyRepository(db),
    keys: createSqliteApiKeyRepository(db),
  };
  const writes = new WriteBatcher(db, repositories, options.onCommit === undefined ? {} : { onCommit: options.onCommit });
  return {
    engine: 'sqlite',
    products: repositories.products,
    workspaces: repositories.workspaces,
    readiness: createSqliteReadinessRepository(db),
    keys: repositories.keys,
    transaction: (work) => writes.run(work),
  };
}
