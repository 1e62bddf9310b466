import type { DatabaseSync } from 'node:sqlite';
import { LOCK_WAIT_MS, retryingWhileBusy } from './busy.ts';
import { createSqliteEventRepository } from './events.ts';
import { createSqliteIdempotencyRepository } from './idempotency.ts';
import { createSqliteApiKeyRepository } from './keys.ts';
import { createSqliteReadinessRepository } from './readiness.ts';
import { createSqliteResourceRepository } from './resources.ts';
import { createSqliteDeliveryRepository } from './webhook-deliveries.ts';
import { createSqliteWebhookRepository } from './webhooks.ts';
import { WebhookFanOut } from './webhook-fan-out.ts';
import type { Repositories, Storage } from '../db/storage.ts';
import { DEFAULT_EVENT_RETENTION_MS } from '../events/model.ts';
import type { ResourceRepositories } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import { WriteBatcher } from './write-batcher.ts';

export interface SqliteStorageOptions {
  /** Called after each group commit with the number of writes it held. */
  onCommit?: (size: number) => void;
  /** How long a read or a write waits for another connection's lock before StorageBusyError (LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** SVC_EVENTS_RETENTION in milliseconds (168h by default). */
  eventRetentionMs?: number;
  /** The resources to keep (their repositories, by plural); none by default. */
  resources?: readonly Resource[];
  /** After a write transaction whose events were fanned out to an enabled webhook: deliveries may be due. */
  onDeliveriesMade?: () => void;
}

// A second repository call of a single write: a create must be one statement (docs/extending.md).
const SECOND_CALL = {
  secondCall: () =>
    new Error('singleWrite: a work made a second repository call (a read before the write counts); a create must be one statement, or run in transaction()'),
};

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
  // The connection's one fan-out: told when each write transaction begins and ends, and of every webhook written.
  const deliveries = new WebhookFanOut(db, options.onDeliveriesMade);
  const resources: Record<string, ResourceRepositories[string]> = {};
  for (const resource of options.resources ?? []) resources[resource.plural] = createSqliteResourceRepository(db, resource, deliveries);
  const repositories: Repositories = {
    resources,
    idempotency: createSqliteIdempotencyRepository(db),
    keys: createSqliteApiKeyRepository(db),
    webhooks: createSqliteWebhookRepository(db, deliveries),
    webhookDeliveries: createSqliteDeliveryRepository(db),
  };
  const writes = new WriteBatcher(db, repositories, {
    lockWaitMs,
    transaction: { began: () => deliveries.began(), ended: () => deliveries.ended() },
    ...(options.onCommit === undefined ? {} : { onCommit: options.onCommit }),
  });
  const events = createSqliteEventRepository(db, {
    retentionMs: options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS,
    // Retention's deletions share the group commit: one writer per connection, and one short step.
    write: (work) => writes.run(work),
  });
  return {
    engine: 'sqlite',
    resources: Object.fromEntries(Object.entries(resources).map(([plural, repository]) => [plural, retryingWhileBusy(repository, lockWaitMs)])),
    readiness: retryingWhileBusy(createSqliteReadinessRepository(db), lockWaitMs),
    keys: retryingWhileBusy(repositories.keys, lockWaitMs),
    webhooks: retryingWhileBusy(repositories.webhooks, lockWaitMs),
    webhookDeliveries: retryingWhileBusy(repositories.webhookDeliveries, lockWaitMs),
    events: retryingWhileBusy(events, lockWaitMs),
    transaction: (work) => writes.run(work),
    // One statement shares the group commit like any transaction: one fsync for the whole batch; a
    // second call is refused here as on PostgreSQL, where it could not be undone.
    singleWrite: (work) => writes.run(work, SECOND_CALL),
  };
}
