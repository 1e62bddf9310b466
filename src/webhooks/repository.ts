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
  /** How many of a webhook's deliveries the claim could take (its room in the slots); perWebhook when not given. */
  roomOf?: (webhookId: number, lastAttemptFailed: boolean | null) => number;
}

/** A claim: what it may read (DueQuery), and the lease of what it takes, one attempt each. */
export interface ClaimRequest extends DueQuery {
  /** When the lease ends (Unix ms): another process may claim the delivery again after it. */
  leaseUntil: number;
  claimToken: number;
}

/** Chooses, from what a claim read, the deliveries to take (the deliverer's slots: src/webhooks/slots.ts); no other effect. */
export type ClaimPick = (due: readonly DueDelivery[]) => readonly DueDelivery[];

/** What an idle deliverer reads at each poll (DeliveryRepository.nextDue). */
export interface NextDue {
  /** When the earliest pending delivery no unexpired lease holds is planned (Unix ms), or null. */
  at: number | null;
  /** Whether any webhook was enabled: with none, a commit elsewhere made no delivery. */
  anyEnabled: boolean;
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
  /**
   * In a write transaction: reads the due deliveries of enabled webhooks that no unexpired lease holds
   * (DueQuery), lets `pick` choose among them, and claims those picked that are still due, of an
   * enabled webhook and free (another process may have taken some since they were read); never waits
   * for another claim. Resolves to the deliveries claimed, with what to send.
   */
  claim(request: ClaimRequest, pick: ClaimPick): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome, and whether its webhook's last attempt failed, unless the claim was lost (its lease expired and another took it). */
  record(attempt: AttemptRecord): Promise<void>;
  /**
   * When the earliest pending delivery that no unexpired lease holds is planned (Unix ms, or null),
   * and whether any webhook is enabled: a read, so an idle poll takes no lock.
   */
  nextDue(now: number): Promise<NextDue>;
  /** When the oldest pending delivery's event was recorded (Unix ms), or null when none is pending. */
  oldestPending(): Promise<number | null>;
  /** One step: deletes up to `maxRows` deliveries of deleted webhooks, then the deleted webhooks whose log is empty; resolves to how many deliveries. */
  removeOfDeleted(maxRows: number): Promise<number>;
  /** One step: up to `maxRows` pending deliveries of disabled webhooks whose event was recorded before `keptSince` become failed; resolves to how many. */
  failExpired(maxRows: number, keptSince: string): Promise<number>;
  /** One step: deletes up to `maxRows` delivered or failed deliveries whose event was recorded before `keptSince`, oldest first; resolves to how many. */
  deleteExpired(maxRows: number, keptSince: string): Promise<number>;
}
