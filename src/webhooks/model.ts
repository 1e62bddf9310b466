import type { StoredEvent } from '../events/model.ts';

/** Webhook status on the wire and in the database (docs/webhooks.md). */
export const WebhookStatus = { enabled: 1, disabled: 2 } as const;
export type WebhookStatus = (typeof WebhookStatus)[keyof typeof WebhookStatus];
export const WEBHOOK_STATUSES: readonly WebhookStatus[] = Object.values(WebhookStatus);

/** Delivery status on the wire and in the database. */
export const DeliveryStatus = { pending: 1, delivered: 2, failed: 3 } as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = Object.values(DeliveryStatus);

/**
 * A stored webhook. `eventTypes` is null for every type. The secret is kept as it is (an HMAC needs
 * it); the previous one signs too until `previousSecretUntil` (Unix ms) after a rotation.
 */
export interface Webhook {
  id: number;
  url: string;
  /** Event type numbers (src/events/model.ts), lowest first, or null for all. */
  eventTypes: number[] | null;
  status: WebhookStatus;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: number | null;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** The API version its deliveries are made in, as stored (webhookAt says which one stands once it is past its sunset). */
  apiVersion: string;
}

/** A validated create request. */
export interface NewWebhook {
  url: string;
  eventTypes: number[] | null;
  status: WebhookStatus;
  apiVersion: string;
}

/** A validated merge patch: the fields to replace (`eventTypes: null` removes the filter). */
export type WebhookPatch = Partial<NewWebhook>;

/** One event's delivery to one webhook, as the delivery log shows it. Times are Unix ms. */
export interface Delivery {
  seq: number;
  webhookId: number;
  eventId: string;
  eventType: number;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: number | null;
  lastResponseStatus: number | null;
  nextAttemptAt: number | null;
  /** When its event was recorded (RFC 3339, as the event's `createdAt`): the delivery is kept as long as the event. */
  eventCreatedAt: string;
}

/** A due delivery a claim may take: whose, since when, and whether its webhook's last attempt failed (null: none recorded yet). */
export interface DueDelivery {
  seq: number;
  webhookId: number;
  /** When it became due (Unix ms). */
  dueAt: number;
  lastAttemptFailed: boolean | null;
}

/** A delivery claimed for one attempt: what to send, where, and signed with what. */
export interface ClaimedDelivery {
  seq: number;
  webhookId: number;
  /** The event as it was recorded, kept in the delivery (the same bytes on every attempt). */
  event: StoredEvent;
  url: string;
  secrets: string[];
  /** Attempts made in this schedule (since the fan-out or the last manual retry). */
  roundAttempts: number;
  /** The lease's token: the outcome is recorded only while the claim is still this one. */
  claimToken: number;
  /** The API version it is made in: its webhook's (as stored) when the event was recorded, docs/webhooks.md. */
  apiVersion: string;
  /** Whether its webhook's last recorded attempt failed, when it was claimed (null: none recorded yet). */
  lastAttemptFailed: boolean | null;
}

/** What an attempt's outcome writes. */
export interface AttemptRecord {
  seq: number;
  claimToken: number;
  status: DeliveryStatus;
  attemptedAt: number;
  responseStatus: number | null;
  nextAttemptAt: number | null;
  /** A 410: the webhook is disabled in the same transaction. */
  disableWebhook: boolean;
}

/** The version a webhook's ETag is made from. */
export function versionOf(webhook: Webhook): number {
  return webhook.version;
}
