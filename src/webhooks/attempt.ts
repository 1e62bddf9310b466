import type { Storage } from '../db/storage.ts';
import type { EventCatalogue } from '../events/catalogue.ts';
import type { ApiVersions, VersionView } from '../versions/api-versions.ts';
import type { Logger } from '../log/logger.ts';
import { type AttemptRecord, type ClaimedDelivery, DeliveryStatus } from './model.ts';
import { versionInForce } from './pinned-version.ts';
import { nextAttemptDelayMs } from './schedule.ts';
import { type AttemptResult, sendWebhook } from './send.ts';
import type { WebhookSettings } from './settings.ts';
import { signatureHeader, type SigningKeys } from './signature.ts';

/** How an attempt ended, as the metrics count it: `webhook_deliveries_total{outcome}`. */
export type AttemptOutcome = 'delivered' | 'retried' | 'failed' | 'disabled';
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retried', 'failed', 'disabled'];

/** What one attempt needs besides its delivery. */
export interface AttemptDeps {
  storage: Storage;
  /** How the event is presented: the body is the Event as the feed shows it, in the delivery's API version. */
  catalogue: EventCatalogue;
  versions: ApiVersions;
  settings: WebhookSettings;
  logger: Logger;
  send: typeof sendWebhook;
  /** The secrets' keys, each imported once (the deliverer's). */
  keys: SigningKeys;
  onAttempt?: ((outcome: AttemptOutcome) => void) | undefined;
  /** Told when the outcome could not be recorded (the database unreachable): the lease will bring it back. */
  onStorageError(error: Error): void;
}

/**
 * The headers of one attempt (Standard Webhooks v1): this attempt's timestamp, signed with every current
 * secret, and the API version the body is made in.
 */
export function attemptHeaders(delivery: ClaimedDelivery, body: string, nowMs: number, apiVersion: string, keys: SigningKeys): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'api-version': apiVersion,
    'webhook-id': delivery.event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(delivery.secrets, delivery.event.id, timestamp, body, keys),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** What an attempt's result writes, and how it counts: delivered, failed, planned again, or the webhook disabled (410). */
export function outcomeOf(delivery: ClaimedDelivery, result: AttemptResult, at: number, scheduleMs: readonly number[]): { record: AttemptRecord; outcome: AttemptOutcome } {
  const base = { seq: delivery.seq, claimToken: delivery.claimToken, attemptedAt: at, responseStatus: result.status, disableWebhook: false };
  if (result.outcome === 'delivered') return { outcome: 'delivered', record: { ...base, status: DeliveryStatus.delivered, nextAttemptAt: null } };
  if (result.outcome === 'gone') return { outcome: 'disabled', record: { ...base, status: DeliveryStatus.failed, nextAttemptAt: null, disableWebhook: true } };
  const delay = nextAttemptDelayMs(scheduleMs, delivery.roundAttempts + 1, result.retryAfterMs, Math.random);
  if (delay === null) return { outcome: 'failed', record: { ...base, status: DeliveryStatus.failed, nextAttemptAt: null } };
  return { outcome: 'retried', record: { ...base, status: DeliveryStatus.pending, nextAttemptAt: at + delay } };
}

/**
 * The version a delivery is made in: its webhook's when its event was recorded, as the delivery keeps it,
 * judged at the event's time (a version past its sunset by then stands for the oldest served then), so
 * every attempt sends the same bytes.
 */
export function versionOfDelivery(versions: ApiVersions, delivery: ClaimedDelivery): VersionView {
  return versionInForce(versions, delivery.apiVersion, Date.parse(delivery.event.createdAt));
}

/** Sends one claimed delivery (the same bytes every time), logs a failure, and records the outcome under its claim; resolves to the outcome. */
export async function attemptDelivery(delivery: ClaimedDelivery, deps: AttemptDeps): Promise<AttemptOutcome> {
  const { settings } = deps;
  const version = versionOfDelivery(deps.versions, delivery);
  const body = deps.catalogue.json(delivery.event, version);
  const headers = attemptHeaders(delivery, body, Date.now(), version.id, deps.keys);
  const result = await deps.send({ url: new URL(delivery.url), headers, body, timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate });
  const { record, outcome } = outcomeOf(delivery, result, Date.now(), settings.retryScheduleMs);
  deps.onAttempt?.(outcome);
  if (outcome !== 'delivered') {
    // Never the URL (it may carry a token), never a secret: the host names the receiver.
    deps.logger.warn('webhook delivery attempt failed', {
      webhookId: delivery.webhookId, eventId: delivery.event.id, host: hostOf(delivery.url), outcome, status: result.status, reason: result.reason,
    });
  }
  // A failure here leaves the claim to its lease: the delivery is attempted again after it.
  await deps.storage.transaction((tx) => tx.webhookDeliveries.record(record)).catch((error: Error) => deps.onStorageError(error));
  return outcome;
}
