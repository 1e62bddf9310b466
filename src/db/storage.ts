import type { EventRepository } from '../events/repository.ts';
import type { IdempotencyRepository } from '../idempotency/repository.ts';
import type { ApiKeyRepository } from '../keys/repository.ts';
import type { ReadinessRepository } from '../readiness/repository.ts';
import type { ResourceRepositories } from '../resources/repository.ts';
import type { DeliveryRepository, WebhookRepository } from '../webhooks/repository.ts';

/** The repositories a write transaction works with, all bound to that one transaction. */
export interface Repositories {
  /** The repository of every resource the storage was made for, by its plural (repositoryOf finds one). */
  readonly resources: ResourceRepositories;
  readonly idempotency: IdempotencyRepository;
  readonly keys: ApiKeyRepository;
  readonly webhooks: WebhookRepository;
  readonly webhookDeliveries: DeliveryRepository;
}

/**
 * The seam between the service and its database engine: reads outside any transaction, and
 * transactions for writes. One implementation per engine; src/app.ts picks one and nothing else
 * knows which runs. Every method may reject with StorageBusyError or StorageUnavailableError.
 * It does not own the connection: whoever opened the database closes it.
 */
export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  readonly resources: ResourceRepositories;
  readonly readiness: ReadinessRepository;
  readonly keys: ApiKeyRepository;
  readonly webhooks: WebhookRepository;
  readonly webhookDeliveries: DeliveryRepository;
  /** The event feed (reads, and retention's deletions); the resources' repositories record the events. */
  readonly events: EventRepository;
  /**
   * Runs `work` in a transaction and resolves with its result once the COMMIT is acknowledged;
   * if `work` rejects, nothing it wrote remains and the rejection is passed on. Engines may run
   * several works in one transaction (SQLite's group commit) or retry a work after a
   * serialization failure (PostgreSQL), so a work must have no effect outside `tx`.
   *
   * A work may await nothing but `tx` (no timer, no I/O, no other promise), and may not keep `tx`
   * for later: on SQLite a transaction lives within one turn of the event loop, shared with the other
   * works of its batch. A work that breaks this fails loudly: what it wrote is rolled back, `tx`
   * throws from then on, and the transaction rejects with an error that is a bug to fix (a 500),
   * while the other works are unaffected.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * Runs `work`, which makes exactly one call of a repository (one statement), as a write of its own:
   * one statement is atomic and durable by itself, so PostgreSQL runs it in autocommit (one round
   * trip, not BEGIN, the statement and COMMIT), and SQLite in its group commit like any transaction.
   * Resolves once the write is committed. A second call in `work` (a read before the write included)
   * is a bug on both engines: it throws before it runs, and the work is rolled back.
   */
  singleWrite<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}
