import type { Storage } from '../db/storage.ts';
import type { EventCatalogue } from '../events/catalogue.ts';
import type { ApiVersions } from '../versions/api-versions.ts';
import type { Logger } from '../log/logger.ts';
import { throttled } from '../log/throttled.ts';
import { type AttemptDeps, attemptDelivery, type AttemptOutcome } from './attempt.ts';
import { ReceiverConnections } from './connections.ts';
import { claimWithin } from './claims.ts';
import type { ClaimedDelivery } from './model.ts';
import { sendWebhook } from './send.ts';
import type { WebhookSettings } from './settings.ts';
import { SigningKeys } from './signature.ts';
import { AttemptSlots, SLOT_LIMITS, type SlotLimits } from './slots.ts';

export { ATTEMPT_OUTCOMES, type AttemptOutcome, attemptHeaders } from './attempt.ts';

/** What the deliverer needs: where deliveries are stored, how to send them, and whom to tell. */
export interface DelivererOptions {
  storage: Storage;
  /** How events are presented: a delivery's body is the Event as the feed shows it, in its API version. */
  catalogue: EventCatalogue;
  versions: ApiVersions;
  settings: WebhookSettings;
  logger: Logger;
  /** Called once per attempt with how it ended. */
  onAttempt?: (outcome: AttemptOutcome) => void;
  /** Attempts in flight in this process, in all and to one webhook, and when a webhook counts as slow (SLOT_LIMITS). */
  limits?: SlotLimits;
  /** How often an idle deliverer looks for due deliveries (250 ms): what other processes' commits wait at most. */
  pollMs?: number;
  /** The transport (sendWebhook); tests may bring their own. */
  send?: typeof sendWebhook;
}

/** A running deliverer. */
export interface Deliverer {
  /** Looks for due deliveries now: a commit in this process made some, or a webhook was written. */
  wake(): void;
  /**
   * A commit in this process may have made deliveries (PostgreSQL, whose fan-out is a trigger): looks
   * now, unless its last look found no webhook enabled and no webhook was written here since.
   */
  committed(): void;
  /** When the oldest pending delivery's event was recorded, in seconds ago (0 when none), as last read. */
  oldestPendingSeconds(): number;
  /**
   * Stops claiming and closes the idle connections to receivers (each other one as its attempt ends);
   * resolves once the attempts in flight have ended (or are left to their lease after `graceMs`).
   */
  stop(graceMs?: number): Promise<void>;
}

// How long a claim holds beyond the attempt's own timeout: the time to record its outcome. A process
// that dies mid-attempt delays that delivery by at most this and the timeout.
const LEASE_MARGIN_MS = 5_000;

// After a claim failed (the database unreachable, busy): the wait before the next try.
const OUTAGE_BACKOFF_MS = 1_000;
// How often the oldest pending delivery is read for the gauge.
const OLDEST_EVERY_MS = 5_000;

/**
 * Claims due deliveries and sends them within the limits of its slots (AttemptSlots: the webhooks
 * that answer first, at most 4 in flight to one webhook), records each outcome and plans the next
 * attempt. Idle, it polls every `pollMs`; `wake()` makes it look at once. A claim that fails (database
 * down) pauses it; it tries again by itself.
 */
class DeliveryLoop implements Deliverer {
  readonly #storage: Storage;
  readonly #settings: WebhookSettings;
  readonly #limits: SlotLimits;
  readonly #slots: AttemptSlots;
  readonly #pollMs: number;
  readonly #deps: AttemptDeps;
  readonly #connections: ReceiverConnections;
  readonly #attempts = new Set<Promise<void>>();
  #stopped = false;
  #claiming = false;
  // Woken while claiming (a commit, the poll): claim again after.
  #again = false;
  // Attempts ended so far, and as the last claim's plan counted them: one that ended after it frees a
  // slot that plan did not offer.
  #ended = 0;
  #endedPlanned = 0;
  // The last claim read more than it took: the next need not ask first whether anything is due.
  #backlog = false;
  #timer: NodeJS.Timeout | undefined;
  // The last look found no webhook enabled: a commit here made no delivery, unless a webhook was
  // enabled since by another process (the poll finds those deliveries) or by this one (wake()).
  #noneEnabled = false;
  // wake()s so far: one during a look may be a webhook written that the look did not see.
  #wakes = 0;
  #oldestMs: number | null = null;
  #oldestReadAt = 0;
  readonly #warnOutage: (error: Error) => void;

  constructor(options: DelivererOptions) {
    this.#storage = options.storage;
    this.#settings = options.settings;
    this.#limits = options.limits ?? SLOT_LIMITS;
    this.#slots = new AttemptSlots(this.#limits);
    this.#pollMs = options.pollMs ?? 250;
    const logger: Logger = options.logger;
    this.#warnOutage = throttled<Error>(30_000, (error, heldBack) =>
      logger.warn('webhook deliveries paused: the database is unreachable or busy; they resume by themselves', { reason: error.message, heldBack }),
    );
    // Idle connections kept: as many per receiver as a webhook may have attempts in flight, and in all.
    this.#connections = new ReceiverConnections({ perKey: this.#limits.perWebhook, total: this.#limits.total });
    const transport = options.send ?? sendWebhook;
    const send: typeof sendWebhook = (request) => transport({ ...request, connections: this.#connections });
    this.#deps = { storage: this.#storage, catalogue: options.catalogue, versions: options.versions, settings: this.#settings, logger, send, keys: new SigningKeys(), onAttempt: options.onAttempt, onStorageError: this.#warnOutage };
    this.#schedule(0);
  }

  readonly wake = (): void => {
    this.#wakes++;
    this.#noneEnabled = false;
    this.#again = true;
    this.#start();
  };

  readonly committed = (): void => {
    if (this.#noneEnabled) return;
    this.#again = true;
    this.#start();
  };

  // Runs the loop unless it runs already; once it ends, again if it was woken meanwhile or an attempt
  // ended after its last plan (one that ended before was counted: claiming again would find nothing).
  #start(): void {
    if (this.#stopped || this.#claiming) return;
    this.#claiming = true;
    this.#again = false;
    this.#endedPlanned = this.#ended;
    void this.#run().finally(() => {
      this.#claiming = false;
      if (this.#again || this.#ended !== this.#endedPlanned) this.#start();
    });
  }

  oldestPendingSeconds(): number {
    return this.#oldestMs === null ? 0 : Math.max(0, (Date.now() - this.#oldestMs) / 1000);
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#connections.close();
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, graceMs);
      graceTimer.unref();
    });
    await Promise.race([Promise.allSettled([...this.#attempts]), grace]);
    clearTimeout(graceTimer);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.wake, delayMs);
    this.#timer.unref();
  }

  // Claims while slots are free and deliveries due, then sleeps until the next poll (or a wake). Unless
  // the last claim left some behind, a read first: an idle poll takes no write lock (SQLite) and opens
  // no transaction.
  async #run(): Promise<void> {
    try {
      if (this.#backlog || (await this.#somethingDue())) while (!this.#stopped && (await this.#claimSome()));
      await this.#readOldest();
      this.#schedule(this.#pollMs);
    } catch (error) {
      this.#backlog = false;
      this.#warnOutage(error as Error);
      this.#schedule(OUTAGE_BACKOFF_MS);
    }
  }

  async #somethingDue(): Promise<boolean> {
    const wakes = this.#wakes;
    const next = await this.#storage.webhookDeliveries.nextDue(Date.now());
    this.#noneEnabled = !next.anyEnabled && wakes === this.#wakes;
    return next.at !== null && next.at <= Date.now();
  }

  // One claim, in a transaction of its own (src/webhooks/claims.ts), with the plan as it runs:
  // attempts may have ended since it was asked for. True when a claim made at once could take more.
  // Otherwise it would read what this one left (a webhook at its limit, the suspect share full): what
  // changes that (an attempt's end, a commit) wakes the deliverer, or the poll comes.
  async #claimSome(): Promise<boolean> {
    const lease = { timeoutMs: this.#settings.timeoutMs, marginMs: LEASE_MARGIN_MS };
    const claim = await this.#storage.transaction((tx) => {
      this.#endedPlanned = this.#ended;
      return claimWithin(tx.webhookDeliveries, this.#slots, this.#limits.perWebhook, lease, Date.now());
    });
    for (const delivery of claim.claimed) this.#begin(delivery);
    this.#backlog = claim.backlog;
    return claim.again;
  }

  #begin(delivery: ClaimedDelivery): void {
    const { webhookId } = delivery;
    const end = this.#slots.begin(webhookId, delivery.lastAttemptFailed, Date.now());
    const running: Promise<void> = attemptDelivery(delivery, this.#deps)
      .then((outcome) => end(outcome !== 'delivered'))
      .catch((error: Error) => {
        end(true);
        this.#deps.logger.error('webhook delivery attempt broke', { webhookId, eventId: delivery.event.id, reason: error.message });
      })
      .finally(() => {
        this.#attempts.delete(running);
        this.#ended++;
        this.#start();
      });
    this.#attempts.add(running);
  }

  async #readOldest(): Promise<void> {
    if (Date.now() - this.#oldestReadAt < OLDEST_EVERY_MS) return;
    this.#oldestReadAt = Date.now();
    this.#oldestMs = await this.#storage.webhookDeliveries.oldestPending();
  }
}

/** Starts a deliverer (DeliveryLoop): it claims at once, then on every wake and poll. */
export function startDeliverer(options: DelivererOptions): Deliverer {
  return new DeliveryLoop(options);
}
