/** The wire name of an event type's stored number (the app's event catalogue). */
export type EventTypeName = (type: number) => string;
import type { Delivery, DeliveryStatus, Webhook, WebhookStatus } from './model.ts';

/** The Webhook representation (docs/webhooks.md); never a secret. */
export type WebhookView = {
  id: number;
  url: string;
  events: string[] | null;
  status: WebhookStatus;
  createdAt: string;
  updatedAt: string;
  apiVersion: string;
};

/** The Webhook representation: exactly these members, in this order (a member a version adds goes last). */
export function presentWebhook(webhook: Webhook, nameOf: EventTypeName): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.eventTypes === null ? null : webhook.eventTypes.map(nameOf),
    status: webhook.status,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
    apiVersion: webhook.apiVersion,
  };
}

/** The 201 of a create and the 200 of a rotation: the Webhook and, this once, its new secret. */
export function presentWebhookWithSecret(webhook: Webhook, secret: string, nameOf: EventTypeName): WebhookView & { secret: string } {
  return { ...presentWebhook(webhook, nameOf), secret };
}

/** The detail of a retry's 410: its event is past SVC_EVENTS_RETENTION, and so is its delivery. */
export const EXPIRED_EVENT_DETAIL = 'This event is no longer kept (SVC_EVENTS_RETENTION): it is not sent again.';

const timeOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The Delivery representation: exactly these members, in this order. */
export function presentDelivery(delivery: Delivery, nameOf: EventTypeName): {
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
} {
  return {
    eventId: delivery.eventId,
    eventType: nameOf(delivery.eventType),
    status: delivery.status,
    attempts: delivery.attempts,
    lastAttemptAt: timeOrNull(delivery.lastAttemptAt),
    lastResponseStatus: delivery.lastResponseStatus,
    nextAttemptAt: timeOrNull(delivery.nextAttemptAt),
  };
}
