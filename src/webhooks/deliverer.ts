import { randomInt } from 'node:crypto';
import type { Storage } from '../db/storage.ts';
import type { EventCatalogue } from '../events/catalogue.ts';
import type { ApiVersions } from '../versions/api-versions.ts';
import type { Logger } from '../log/logger.ts';
import { throttled } from '../log/throttled.ts';
import { type AttemptDeps, attemptDelivery, type AttemptOutcome } from './attempt.ts';
import type { ClaimedDelivery } from './model.ts';
import { sendWebhook } from './send.ts';
import type { WebhookSettings } from './settings.ts';

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
  /** Attempts in flight in this process at most (32). */
  concurrency?: number;
  /** Attempts in flight to one webhook in this process at most (4): a slow receiver cannot take every slot. */
  perWebhook?: number;
  /** How often an idle deliverer looks for due deliveries (250 ms): what other processes' commits wait at most. */
  pollMs?: number;
  /** The transport (sendWebhook); tests may bring their own. */
  send?: typeof sendWebhook;
}

/** A running deliverer. */
export interface Deliverer {
  /** Looks for due deliveries now (after a commit in this process). */
  wake(): void;
  /** When the oldest pending delivery's event was recorded, in seconds ago (0 when none), as last read. */
  oldestPendingSeconds(): number;
  /** Stops claiming; resolves once the attempts in flight have ended (or are left to their lease after `graceMs`). */
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
 * Claims due deliveries and sends them, at most `concurrency` at a time and `perWebhook` per webhook,
 * records each outcome and plans the next attempt. Idle, it polls every `pollMs`; `wake()` makes it
 * look at once. A claim that fails (database down) pauses it; it tries again by itself.
 */
class DeliveryLoop implements Deliverer {
  readonly #storage: Storage;
  readonly #settings: WebhookSettings;
  readonly #concurrency: number;
  readonly #perWebhook: number;
  readonly #pollMs: number;
  readonly #deps: AttemptDeps;
  // Attempts in flight, by webhook, and all of them.
  readonly #inFlight = new Map<number, number>();
  readonly #attempts = new Set<Promise<void>>();
  #stopped = false;
  #claiming = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #oldestMs: number | null = null;
  #oldestReadAt = 0;
  readonly #warnOutage: (error: Error) => void;

  constructor(options: DelivererOptions) {
    this.#storage = options.storage;
    this.#settings = options.settings;
    this.#concurrency = options.concurrency ?? 32;
    this.#perWebhook = options.perWebhook ?? 4;
    this.#pollMs = options.pollMs ?? 250;
    const logger: Logger = options.logger;
    this.#warnOutage = throttled<Error>(30_000, (error, heldBack) =>
      logger.warn('webhook deliveries paused: the database is unreachable or busy; they resume by themselves', { reason: error.message, heldBack }),
    );
    const send = options.send ?? sendWebhook;
    this.#deps = { storage: this.#storage, catalogue: options.catalogue, versions: options.versions, settings: this.#settings, logger, send, onAttempt: options.onAttempt, onStorageError: this.#warnOutage };
    this.#schedule(0);
  }

  readonly wake = (): void => {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    void this.#run().finally(() => {
      this.#claiming = false;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.wake();
      }
    });
  };

  oldestPendingSeconds(): number {
    return this.#oldestMs === null ? 0 : Math.max(0, (Date.now() - this.#oldestMs) / 1000);
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
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

  // Claims while slots are free and deliveries due, then sleeps until the next poll (or a wake). A read
  // first: an idle poll takes no write lock (SQLite) and opens no transaction.
  async #run(): Promise<void> {
    try {
      const due = await this.#storage.webhookDeliveries.nextDue(Date.now());
      if (due !== null && due <= Date.now()) while (!this.#stopped && (await this.#claimSome()) > 0);
      await this.#readOldest();
      this.#schedule(this.#pollMs);
    } catch (error) {
      this.#warnOutage(error as Error);
      this.#schedule(OUTAGE_BACKOFF_MS);
    }
  }

  async #claimSome(): Promise<number> {
    const free = this.#concurrency - this.#attempts.size;
    if (free <= 0) return 0;
    const excludeWebhooks = [...this.#inFlight].filter(([, count]) => count >= this.#perWebhook).map(([id]) => id);
    const now = Date.now();
    const leaseUntil = now + this.#settings.timeoutMs + LEASE_MARGIN_MS;
    const request = { now, limit: free, perWebhook: this.#perWebhook, excludeWebhooks, leaseUntil, claimToken: randomInt(1, 2 ** 47) };
    const claimed = await this.#storage.transaction((tx) => tx.webhookDeliveries.claim(request));
    for (const delivery of claimed) this.#begin(delivery);
    return claimed.length;
  }

  #begin(delivery: ClaimedDelivery): void {
    const { webhookId } = delivery;
    this.#inFlight.set(webhookId, (this.#inFlight.get(webhookId) ?? 0) + 1);
    const running: Promise<void> = attemptDelivery(delivery, this.#deps)
      .catch((error: Error) => this.#deps.logger.error('webhook delivery attempt broke', { webhookId, eventId: delivery.event.id, reason: error.message }))
      .finally(() => {
        const left = (this.#inFlight.get(webhookId) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(webhookId);
        else this.#inFlight.set(webhookId, left);
        this.#attempts.delete(running);
        this.wake();
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
