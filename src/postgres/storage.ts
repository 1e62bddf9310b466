import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresEventRepository } from './events.ts';
import { createPostgresIdempotencyRepository } from './idempotency.ts';
import { createPostgresApiKeyRepository } from './keys.ts';
import { createGroupedInserts, type GroupedInserts } from './grouped-inserts.ts';
import { createPostgresReadinessRepository } from './readiness.ts';
import { createPostgresResourceRepository } from './resources.ts';
import { createPostgresDeliveryRepository } from './webhook-deliveries.ts';
import { createPostgresWebhookRepository } from './webhooks.ts';
import { StorageBusyError } from '../db/errors.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import { DEFAULT_EVENT_RETENTION_MS } from '../events/model.ts';
import type { ResourceRepositories } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import type { PostgresClient, SqlRunner } from './client.ts';
import { isRetryable } from './errors.ts';

export interface PostgresStorageOptions {
  /** Runs of one transaction at most, the first included, when it keeps being aborted (40001, 40P01). */
  maxAttempts?: number;
  /** SVC_EVENTS_RETENTION in milliseconds (168h by default). */
  eventRetentionMs?: number;
  /** The resources to keep (their repositories, by plural); none by default. */
  resources?: readonly Resource[];
}

function resourcesOn(db: SqlRunner, resources: readonly Resource[]): ResourceRepositories {
  return Object.fromEntries(resources.map((resource) => [resource.plural, createPostgresResourceRepository(db, resource)]));
}

function repositoriesOn(db: SqlRunner, resources: readonly Resource[]): Repositories {
  return {
    resources: resourcesOn(db, resources),
    idempotency: createPostgresIdempotencyRepository(db),
    keys: createPostgresApiKeyRepository(db),
    webhooks: createPostgresWebhookRepository(db),
    webhookDeliveries: createPostgresDeliveryRepository(db),
  };
}

// A single write's repositories: its one statement may be an insert, which goes with the concurrent
// ones of the same resource in one statement (grouped-inserts.ts); it counts as the work's one statement.
function singleWriteRepositories(pool: SqlRunner, resources: readonly Resource[], inserts: ReadonlyMap<string, GroupedInserts>): Repositories {
  const single = oneStatement(pool);
  const repositories: ResourceRepositories = Object.fromEntries(resources.map((resource) => {
    const grouped = inserts.get(resource.plural) as GroupedInserts;
    const repository = createPostgresResourceRepository(single.runner, resource);
    const insert: typeof repository.insert = (row) => {
      single.take();
      return grouped.insert(row);
    };
    return [resource.plural, { ...repository, insert }];
  }));
  return {
    resources: repositories,
    idempotency: createPostgresIdempotencyRepository(single.runner),
    keys: createPostgresApiKeyRepository(single.runner),
    webhooks: createPostgresWebhookRepository(single.runner),
    webhookDeliveries: createPostgresDeliveryRepository(single.runner),
  };
}

// A runner on the pool (autocommit) that lets one statement through: a second is a bug in the work,
// refused before it runs, since the first has committed already and nothing could undo it.
function oneStatement(pool: SqlRunner): { runner: SqlRunner; take(): void } {
  let used = false;
  const take = (): void => {
    if (used) throw new Error('singleWrite: a work made a second statement; use transaction() for several');
    used = true;
  };
  const runner: SqlRunner = {
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
  return { runner, take };
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
  const resources = options.resources ?? [];
  const reads = repositoriesOn(client, resources);
  const inserts = new Map(resources.map((resource) => [resource.plural, createGroupedInserts(client, resource)]));
  return {
    engine: 'postgres',
    resources: reads.resources,
    readiness: createPostgresReadinessRepository(client),
    keys: reads.keys,
    webhooks: reads.webhooks,
    webhookDeliveries: reads.webhookDeliveries,
    events: createPostgresEventRepository(client, options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS),
    transaction: (work) => retrying(maxAttempts, () => client.transaction((tx) => work(repositoriesOn(tx, resources)))),
    singleWrite: (work) => retrying(maxAttempts, () => work(singleWriteRepositories(client, resources, inserts))),
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
