import type { Webhook } from '../../src/webhooks/model.ts';
import { WebhookStatus } from '../../src/webhooks/model.ts';
import { DEFAULT_VERSION } from './resources.ts';

/** A webhook row as storage inserts it: enabled, for every event type, in the default API version; `overrides` change any member. */
export function webhookRow(overrides: Partial<Omit<Webhook, 'id' | 'version'>> = {}): Omit<Webhook, 'id' | 'version'> {
  const at = '2026-11-28T09:30:00.000Z';
  return {
    url: 'https://hooks.example.com/', eventTypes: null, status: WebhookStatus.enabled, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSecret: null, previousSecretUntil: null, createdAt: at, updatedAt: at, apiVersion: DEFAULT_VERSION.id, ...overrides,
  };
}
