import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of a webhook secret, as Standard Webhooks writes them. */
export const SECRET_PREFIX = 'whsec_';

/** A new webhook secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key a secret stands for: the bytes its base64 (after `whsec_`) decodes to. */
export function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * The `webhook-signature` header of one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` for each secret, separated by a space (two while a rotated secret is kept).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', secretBytes(secret)).update(signed, 'utf8').digest('base64')}`).join(' ');
}
