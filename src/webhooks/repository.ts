import type { AttemptRecord, ClaimedDelivery, Delivery, DeliveryStatus, DueDelivery, Webhook } from './model.ts';

/** Storage of webhooks; each engine implements it in its own file, the only code that knows their SQL. */
export interface WebhookRepository {
  /** Stores a new webhook; the database assigns an id never used before. */
  insert(webhook: Omit<Webhook, 'id' | 'version'>): Promise<Webhook>;
  findById(id: number): Promise<Webhook | undefined>;
  /** In a write transaction: reads the webhook and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: number): Promise<Webhook | undefined>;
  /** Writes every field but id and createdAt. */
  update(webhook: Webhook): Promise<void>;
  /**
   * Deletes the webhook at once: from now on it is found by no read and takes no delivery (it is disabled
   * too); its log goes later, in steps (DeliveryRepository.removeOfDeleted). False when there was none.
   */
  remove(id: number): Promise<boolean>;
  /** Up to `limit` webhooks with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Promise<Webhook[]>;
}

/** What a claim reads: per webhook, its oldest due deliveries that no unexpired lease holds. */
export interface DueQuery {
  now: number;
  /** Webhooks to leave out (this process takes nothing more of theirs now). */
  excludeWebhooks: readonly number[];
  /** Webhooks this process knows to be slow: served after the others, as those whose last attempt failed. */
  slowWebhooks: readonly number[];
  /** False: leave out the webhooks whose last attempt failed too (their share is full). */
  withFailing: boolean;
  /** Webhooks at most, those that answer first, then the oldest due first. */
  webhooks: number;
  /** Deliveries of each at most. */
  perWebhook: number;
}

/** A claim of picked deliveries for one attempt each. */
export interface TakeRequest {
  seqs: readonly number[];
  now: number;
  /** When the lease ends (Unix ms): another process may claim the delivery again after it. */
  leaseUntil: number;
  claimToken: number;
}

/** Storage of deliveries: the log, the claims of the deliverer, the outcomes of its attempts. */
export interface DeliveryRepository {
  /** Up to `limit` deliveries of the webhook with seq below `beforeSeq` (all when null), newest first. */
  listBefore(webhookId: number, beforeSeq: number | null, limit: number, status: DeliveryStatus | null): Promise<Delivery[]>;
  findForUpdate(webhookId: number, eventId: string): Promise<Delivery | undefined>;
  /** Makes the delivery pending again, due at `now`, its schedule started over. */
  restart(seq: number, now: number): Promise<void>;
  /** Pending deliveries of the webhook: planned nothing (null, disabled) or due at `now` (enabled again). */
  pauseOrResume(webhookId: number, now: number | null): Promise<void>;
  /** A read: due deliveries of enabled webhooks that no unexpired lease holds, for a claim to pick from (DueQuery). */
  dueByWebhook(query: DueQuery): Promise<DueDelivery[]>;
  /**
   * In a write transaction: claims those of `seqs` that are still due, of an enabled webhook, and held
   * by no unexpired lease (another process may have taken some since they were read); never waits for
   * another claim.
   */
  take(request: TakeRequest): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome, and whether its webhook's last attempt failed, unless the claim was lost (its lease expired and another took it). */
  record(attempt: AttemptRecord): Promise<void>;
  /** When the earliest pending delivery that no unexpired lease holds is planned (Unix ms), or null: a read, so an idle poll takes no lock. */
  nextDue(now: number): Promise<number | null>;
  /** When the oldest pending delivery's event was recorded (Unix ms), or null when none is pending. */
  oldestPending(): Promise<number | null>;
  /** One step: deletes up to `maxRows` deliveries of deleted webhooks, then the deleted webhooks whose log is empty; resolves to how many deliveries. */
  removeOfDeleted(maxRows: number): Promise<number>;
  /** One step: up to `maxRows` pending deliveries of disabled webhooks whose event was recorded before `keptSince` become failed; resolves to how many. */
  failExpired(maxRows: number, keptSince: string): Promise<number>;
  /** One step: deletes up to `maxRows` delivered or failed deliveries whose event was recorded before `keptSince`, oldest first; resolves to how many. */
  deleteExpired(maxRows: number, keptSince: string): Promise<number>;
}
