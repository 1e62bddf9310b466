import { randomInt } from 'node:crypto';
import type { Storage } from '../db/storage.ts';
import { eventJson } from '../events/presenter.ts';
import type { Logger } from '../log/logger.ts';
import { throttled } from '../log/throttled.ts';
import { type AttemptRecord, type ClaimedDelivery, DeliveryStatus } from './model.ts';
import { nextAttemptDelayMs } from './schedule.ts';
import { sendWebhook } from './send.ts';
import type { WebhookSettings } from './settings.ts';
import { signatureHeader } from './signature.ts';

/** How an attempt ended, as the metrics count it: `webhook_deliveries_total{outcome}`. */
export type AttemptOutcome = 'delivered' | 'retried' | 'failed' | 'disabled';
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retried', 'failed', 'disabled'];

/** What the deliverer needs: where deliveries are stored, how to send them, and whom to tell. */
export interface DelivererOptions {
  storage: Storage;
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

/** The headers of one attempt (Standard Webhooks v1): this attempt's timestamp, signed with every current secret. */
export function attemptHeaders(delivery: ClaimedDelivery, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': delivery.event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(delivery.secrets, delivery.event.id, timestamp, body),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * Claims due deliveries and sends them, at most `concurrency` at a time and `perWebhook` per webhook,
 * records each outcome and plans the next attempt. Idle, it polls every `pollMs`; `wake()` makes it
 * look at once. A claim that fails (database down) pauses it; it tries again by itself.
 */
export function startDeliverer(options: DelivererOptions): Deliverer {
  const { storage, settings, logger } = options;
  const concurrency = options.concurrency ?? 32;
  const perWebhook = options.perWebhook ?? 4;
  const pollMs = options.pollMs ?? 250;
  const send = options.send ?? sendWebhook;
  const inFlight = new Map<number, number>();
  const attempts = new Set<Promise<void>>();
  let total = 0;
  let stopped = false;
  let claiming = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let oldestMs: number | null = null;
  let oldestReadAt = 0;
  const warnOutage = throttled<Error>(30_000, (error, heldBack) =>
    logger.warn('webhook deliveries paused: the database cannot be reached; they resume by themselves', { reason: error.message, heldBack }),
  );

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
    timer.unref();
  };

  const outcomeOf = (delivery: ClaimedDelivery, result: Awaited<ReturnType<typeof send>>, at: number): { record: AttemptRecord; outcome: AttemptOutcome } => {
    const base = { seq: delivery.seq, claimToken: delivery.claimToken, attemptedAt: at, responseStatus: result.status, disableWebhook: false };
    if (result.outcome === 'delivered') return { outcome: 'delivered', record: { ...base, status: DeliveryStatus.delivered, nextAttemptAt: null } };
    if (result.outcome === 'gone') return { outcome: 'disabled', record: { ...base, status: DeliveryStatus.failed, nextAttemptAt: null, disableWebhook: true } };
    const delay = nextAttemptDelayMs(settings.retryScheduleMs, delivery.roundAttempts + 1, result.retryAfterMs, Math.random);
    if (delay === null) return { outcome: 'failed', record: { ...base, status: DeliveryStatus.failed, nextAttemptAt: null } };
    return { outcome: 'retried', record: { ...base, status: DeliveryStatus.pending, nextAttemptAt: at + delay } };
  };

  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const body = eventJson(delivery.event);
    const headers = attemptHeaders(delivery, body, Date.now());
    const result = await send({ url: new URL(delivery.url), headers, body, timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate });
    const { record, outcome } = outcomeOf(delivery, result, Date.now());
    options.onAttempt?.(outcome);
    if (outcome !== 'delivered') {
      // Never the URL (it may carry a token), never a secret: the host names the receiver.
      logger.warn('webhook delivery attempt failed', {
        webhookId: delivery.webhookId, eventId: delivery.event.id, host: hostOf(delivery.url), outcome, status: result.status, reason: result.reason,
      });
    }
    // A failure here leaves the claim to its lease: the delivery is attempted again after it.
    await storage.transaction((tx) => tx.webhookDeliveries.record(record)).catch((error: Error) => warnOutage(error));
  };

  const begin = (delivery: ClaimedDelivery): void => {
    total++;
    inFlight.set(delivery.webhookId, (inFlight.get(delivery.webhookId) ?? 0) + 1);
    const running: Promise<void> = attempt(delivery)
      .catch((error: Error) => logger.error('webhook delivery attempt broke', { webhookId: delivery.webhookId, eventId: delivery.event.id, reason: error.message }))
      .finally(() => {
        total--;
        const left = (inFlight.get(delivery.webhookId) ?? 1) - 1;
        if (left === 0) inFlight.delete(delivery.webhookId);
        else inFlight.set(delivery.webhookId, left);
        attempts.delete(running);
        tick();
      });
    attempts.add(running);
  };

  const claimSome = async (): Promise<number> => {
    const free = concurrency - total;
    if (free <= 0) return 0;
    const excludeWebhooks = [...inFlight].filter(([, count]) => count >= perWebhook).map(([id]) => id);
    const now = Date.now();
    const request = { now, limit: free, perWebhook, excludeWebhooks, leaseUntil: now + settings.timeoutMs + LEASE_MARGIN_MS, claimToken: randomInt(1, 2 ** 47) };
    const claimed = await storage.transaction((tx) => tx.webhookDeliveries.claim(request));
    for (const delivery of claimed) begin(delivery);
    return claimed.length;
  };

  const readOldest = async (): Promise<void> => {
    if (Date.now() - oldestReadAt < OLDEST_EVERY_MS) return;
    oldestReadAt = Date.now();
    oldestMs = await storage.webhookDeliveries.oldestPending();
  };

  async function run(): Promise<void> {
    try {
      while (!stopped && (await claimSome()) > 0);
      await readOldest();
      schedule(pollMs);
    } catch (error) {
      warnOutage(error as Error);
      schedule(OUTAGE_BACKOFF_MS);
    }
  }

  function tick(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    void run().finally(() => {
      claiming = false;
      if (again && !stopped) {
        again = false;
        tick();
      }
    });
  }

  schedule(0);
  return {
    wake: tick,
    oldestPendingSeconds: () => (oldestMs === null ? 0 : Math.max(0, (Date.now() - oldestMs) / 1000)),
    async stop(graceMs = 10_000) {
      stopped = true;
      clearTimeout(timer);
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        graceTimer = setTimeout(resolve, graceMs);
        graceTimer.unref();
      });
      await Promise.race([Promise.allSettled([...attempts]), grace]);
      clearTimeout(graceTimer);
    },
  };
}
