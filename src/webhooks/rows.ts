import { bitsOf, type EventType, type StoredEvent, typesOfBits } from '../events/model.ts';
import { type ClaimedDelivery, type Delivery, type DeliveryStatus, type Webhook, type WebhookStatus } from './model.ts';

/** The columns both engines' repositories select for a webhook, in this order (rows come back as arrays). */
export const WEBHOOK_COLUMNS = [
  'id', 'url', 'event_mask', 'status', 'secret', 'previous_secret', 'previous_secret_until', 'created_at', 'updated_at', 'version',
] as const;

/** The columns of a delivery's log entry, in this order. */
export const DELIVERY_COLUMNS = [
  'seq', 'webhook_id', 'event_id', 'event_type', 'status', 'attempts', 'last_attempt_at', 'last_response_status', 'next_attempt_at',
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
  };
}

/** The secrets that sign a delivery at `now`: the current one, and the previous one while it is kept. */
export function signingSecrets(webhook: Pick<Webhook, 'secret' | 'previousSecret' | 'previousSecretUntil'>, now: number): string[] {
  const keepPrevious = webhook.previousSecret !== null && webhook.previousSecretUntil !== null && webhook.previousSecretUntil > now;
  return keepPrevious ? [webhook.secret, webhook.previousSecret as string] : [webhook.secret];
}

/**
 * Picks up to `limit` of `candidates` (oldest due first), at most `perWebhook` of any one webhook, so a
 * webhook with a long backlog cannot take every slot of a claim from the others.
 */
export function pickFairly<T>(candidates: readonly T[], webhookOf: (candidate: T) => number, limit: number, perWebhook: number): T[] {
  const taken = new Map<number, number>();
  const picked: T[] = [];
  for (const candidate of candidates) {
    if (picked.length >= limit) break;
    const webhook = webhookOf(candidate);
    const count = taken.get(webhook) ?? 0;
    if (count >= perWebhook) continue;
    taken.set(webhook, count + 1);
    picked.push(candidate);
  }
  return picked;
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

/**
 * How many due deliveries a claim reads to pick from. A webhook at its limit is left out by the query,
 * and a claim that filled slots is followed by another, so a backlog of one webhook holds back the
 * others for one claim at most: reading a little more than the slots suffices.
 */
export function candidatesFor(request: { limit: number; perWebhook: number }): number {
  return request.limit + request.perWebhook;
}

/** A claimed delivery from a claim's row (seq, webhook, the event's copy, round attempts, url, secrets), on either engine. */
export function claimedFromRow(row: readonly unknown[], now: number, claimToken: number): ClaimedDelivery {
  return {
    seq: Number(row[0]),
    webhookId: Number(row[1]),
    event: storedEventFromCopy({ id: row[2] as string, type: Number(row[3]), createdAt: row[4] as string, data: row[5] as string }),
    url: row[7] as string,
    secrets: signingSecrets({ secret: row[8] as string, previousSecret: (row[9] ?? null) as string | null, previousSecretUntil: row[10] === null ? null : Number(row[10]) }, now),
    roundAttempts: Number(row[6]),
    claimToken,
  };
}
