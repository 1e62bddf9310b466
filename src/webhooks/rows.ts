import { bitsOf, type EventType, type StoredEvent, typesOfBits } from '../events/model.ts';
import { type ClaimedDelivery, type Delivery, type DeliveryStatus, type DueDelivery, type Webhook, type WebhookStatus } from './model.ts';

/** The columns both engines' repositories select for a webhook, in this order (rows come back as arrays). */
export const WEBHOOK_COLUMNS = [
  'id', 'url', 'event_mask', 'status', 'secret', 'previous_secret', 'previous_secret_until', 'created_at', 'updated_at', 'version', 'api_version',
] as const;

/** The columns of a delivery's log entry, in this order. */
export const DELIVERY_COLUMNS = [
  'seq', 'webhook_id', 'event_id', 'event_type', 'status', 'attempts', 'last_attempt_at', 'last_response_status', 'next_attempt_at', 'event_created_at',
] as const;

/**
 * Event types as stored on a webhook: one bit per type number (bit 1 for type 1, …), so the fan-out
 * trigger tests a type with one shift on either engine; null takes every type.
 */
export function eventMaskOf(types: readonly number[] | null): number | null {
  return types === null ? null : bitsOf(types);
}

/** The type numbers of a mask, lowest first; null for every type. */
export function eventTypesOf(mask: number | null): number[] | null {
  return mask === null ? null : typesOfBits(mask);
}

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A webhook from a row in WEBHOOK_COLUMNS order; PostgreSQL's bigints may come as text. */
export function webhookFromRow(row: readonly unknown[]): Webhook {
  return {
    id: Number(row[0]),
    url: row[1] as string,
    eventTypes: eventTypesOf(numberOrNull(row[2])),
    status: Number(row[3]) as WebhookStatus,
    secret: row[4] as string,
    previousSecret: (row[5] ?? null) as string | null,
    previousSecretUntil: numberOrNull(row[6]),
    createdAt: row[7] as string,
    updatedAt: row[8] as string,
    version: Number(row[9]),
    apiVersion: row[10] as string,
  };
}

/** A delivery from a row in DELIVERY_COLUMNS order. */
export function deliveryFromRow(row: readonly unknown[]): Delivery {
  return {
    seq: Number(row[0]),
    webhookId: Number(row[1]),
    eventId: row[2] as string,
    eventType: Number(row[3]),
    status: Number(row[4]) as DeliveryStatus,
    attempts: Number(row[5]),
    lastAttemptAt: numberOrNull(row[6]),
    lastResponseStatus: numberOrNull(row[7]),
    nextAttemptAt: numberOrNull(row[8]),
    eventCreatedAt: row[9] as string,
  };
}

/** The secrets that sign a delivery at `now`: the current one, and the previous one while it is kept. */
export function signingSecrets(webhook: Pick<Webhook, 'secret' | 'previousSecret' | 'previousSecretUntil'>, now: number): string[] {
  const keepPrevious = webhook.previousSecret !== null && webhook.previousSecretUntil !== null && webhook.previousSecretUntil > now;
  return keepPrevious ? [webhook.secret, webhook.previousSecret as string] : [webhook.secret];
}

/** The columns of an event a delivery keeps a copy of, as stored. */
export interface EventCopy {
  id: string;
  type: number;
  createdAt: string;
  /** The resource's row as JSON text (the events table's `data`). */
  data: string;
}

/** The event a delivery's copy stands for: the same StoredEvent the feed reads, so the same bytes. */
export function storedEventFromCopy(copy: EventCopy): StoredEvent {
  return { id: copy.id, type: copy.type as EventType, createdAt: copy.createdAt, row: JSON.parse(copy.data) as unknown[] };
}

const failedOrNull = (value: unknown): boolean | null => (value === null || value === undefined ? null : Boolean(Number(value)));

/** A due delivery from a row (seq, webhook, due at, the webhook's last attempt failed: 0/1/NULL or a boolean), on either engine. */
export function dueFromRow(row: readonly unknown[]): DueDelivery {
  return { seq: Number(row[0]), webhookId: Number(row[1]), dueAt: Number(row[2]), lastAttemptFailed: failedOrNull(row[3]) };
}

/** The columns a claim returns, in this order: the delivery, its copy of the event, where and with what to send it, its version, and whether its webhook's last attempt failed. */
export const CLAIM_COLUMNS = [
  'd.seq', 'd.webhook_id', 'd.event_id', 'd.event_type', 'd.event_created_at', 'd.event_data', 'd.round_attempts',
  'w.url', 'w.secret', 'w.previous_secret', 'w.previous_secret_until', 'd.api_version', 'w.last_attempt_failed',
] as const;

/** A claimed delivery from a row in CLAIM_COLUMNS order, on either engine. */
export function claimedFromRow(row: readonly unknown[], now: number, claimToken: number): ClaimedDelivery {
  return {
    seq: Number(row[0]),
    webhookId: Number(row[1]),
    event: storedEventFromCopy({ id: row[2] as string, type: Number(row[3]), createdAt: row[4] as string, data: row[5] as string }),
    url: row[7] as string,
    secrets: signingSecrets({ secret: row[8] as string, previousSecret: (row[9] ?? null) as string | null, previousSecretUntil: row[10] === null ? null : Number(row[10]) }, now),
    roundAttempts: Number(row[6]),
    claimToken,
    apiVersion: row[11] as string,
    lastAttemptFailed: failedOrNull(row[12]),
  };
}
