import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresEventRepository } from './events.ts';
import { createPostgresIdempotencyRepository } from './idempotency.ts';
import { createPostgresApiKeyRepository } from './keys.ts';
import { createPostgresProductRepository } from './products.ts';
import { createPostgresReadinessRepository } from './readiness.ts';
import { createPostgresWorkspaceRepository } from './workspaces.ts';
import { StorageBusyError } from '../db/errors.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import { DEFAULT_EVENT_RETENTION_MS } from '../events/model.ts';
import type { PostgresClient, SqlRunner } from './client.ts';
import { isRetryable } from './errors.ts';

export interface PostgresStorageOptions {
  /** Runs of one transaction at most, the first included, when it keeps being aborted (40001, 40P01). */
  maxAttempts?: number;
  /** SVC_EVENTS_RETENTION in milliseconds (168h by default). */
  eventRetentionMs?: number;
}

function repositoriesOn(db: SqlRunner): Repositories {
  return {
    products: createPostgresProductRepository(db),
    workspaces: createPostgresWorkspaceRepository(db),
    idempotency: createPostgresIdempotencyRepository(db),
    keys: createPostgresApiKeyRepository(db),
  };
}

// A runner on the pool (autocommit) that lets one statement through: a second is a bug in the work,
// refused before it runs, since the first has committed already and nothing could undo it.
function oneStatement(pool: SqlRunner): SqlRunner {
  let used = false;
  const take = (): void => {
    if (used) throw new Error('singleWrite: a work made a second statement; use transaction() for several');
    used = true;
  };
  return {
    rows: (sql, params) => {
      take();
      return pool.rows(sql, params);
    },
    run: (sql, params) => {
      take();
      return pool.run(sql, params);
    },
    script: () => Promise.reject(new Error('singleWrite: a work ran a script; use transaction()')),
  };
}

// Full jitter, growing: two transactions that collided once rarely collide again.
const backoffMs = (attempt: number): number => Math.random() * Math.min(200, 5 * 2 ** attempt);

/**
 * Storage on a PostgreSQL pool. Each write transaction runs on its own connection, so writes of
 * many requests (and nodes) commit concurrently; a single write runs in autocommit on any pooled
 * connection. A write aborted by a serialization failure or a deadlock runs again from the start,
 * up to `maxAttempts` times, then is StorageBusyError.
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
    events: createPostgresEventRepository(client, options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS),
    transaction: (work) => retrying(maxAttempts, () => client.transaction((tx) => work(repositoriesOn(tx)))),
    singleWrite: (work) => retrying(maxAttempts, () => work(repositoriesOn(oneStatement(client)))),
  };
}

// A write aborted for a serialization failure or a deadlock runs again from the start.
async function retrying<T>(maxAttempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      if (attempt >= maxAttempts) throw new StorageBusyError(`a transaction was aborted ${attempt} times by conflicting ones`);
      await sleep(backoffMs(attempt));
    }
  }
}
