import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

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
 * The HMAC keys of secrets, each decoded and imported once, by the secret itself (a rotated secret is
 * another key): createHmac imports raw bytes again on every call, and a KeyObject signs a delivery's
 * body about six times faster. At most `max` are kept; when full, all are dropped and made again.
 */
export class SigningKeys {
  readonly #keys = new Map<string, KeyObject>();
  readonly #max: number;

  constructor(max = 1024) {
    this.#max = max;
  }

  /** Keys held now. */
  get size(): number {
    return this.#keys.size;
  }

  /** The key of `secret`. */
  of(secret: string): KeyObject {
    let key = this.#keys.get(secret);
    if (key === undefined) {
      if (this.#keys.size >= this.#max) this.#keys.clear();
      key = createSecretKey(secretBytes(secret));
      this.#keys.set(secret, key);
    }
    return key;
  }
}

/**
 * The `webhook-signature` header of one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` for each secret, separated by a space (two while a rotated secret is kept);
 * with `keys`, each secret's key is imported once.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string, keys?: SigningKeys): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', keys?.of(secret) ?? secretBytes(secret)).update(signed, 'utf8').digest('base64')}`).join(' ');
}
