import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresIdempotencyRepository } from './idempotency.ts';
import { createPostgresApiKeyRepository } from './keys.ts';
import { createPostgresProductRepository } from './products.ts';
import { createPostgresReadinessRepository } from './readiness.ts';
import { createPostgresWorkspaceRepository } from './workspaces.ts';
import { StorageBusyError } from '../db/errors.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import type { PostgresClient, SqlRunner } from './client.ts';
import { isRetryable } from './errors.ts';

export interface PostgresStorageOptions {
  /** Runs of one transaction at most, the first included, when it keeps being aborted (40001, 40P01). */
  maxAttempts?: number;
}

function repositoriesOn(db: SqlRunner): Repositories {
  return {
    products: createPostgresProductRepository(db),
    workspaces: createPostgresWorkspaceRepository(db),
    idempotency: createPostgresIdempotencyRepository(db),
    keys: createPostgresApiKeyRepository(db),
  };
}

// Full jitter, growing: two transactions that collided once rarely collide again.
const backoffMs = (attempt: number): number => Math.random() * Math.min(200, 5 * 2 ** attempt);

/**
 * Storage on a PostgreSQL pool. Each write transaction runs on its own connection, so writes of
 * many requests (and nodes) commit concurrently; a transaction aborted by a serialization failure
 * or a deadlock runs again from the start, up to `maxAttempts` times, then is StorageBusyError.
 */
export function createPostgresStorage(client: PostgresClient, options: PostgresStorageOptions = {}): Storage {
  const maxAttempts = options.maxAttempts ?? 5;
  const reads = repositoriesOn(client);
  return {
    engine: 'postgres',
    products: reads.products,
    workspaces: reads.workspaces,
    readiness: createPostgresReadinessRepository(client),
    keys: reads.keys,
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await client.transaction((tx) => work(repositoriesOn(tx)));
        } catch (error) {
          if (!isRetryable(error)) throw error;
          if (attempt >= maxAttempts) throw new StorageBusyError(`a transaction was aborted ${attempt} times by conflicting ones`);
          await sleep(backoffMs(attempt));
        }
      }
    },
  };
}
