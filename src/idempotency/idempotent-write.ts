import { createHash } from 'node:crypto';
import type { Repositories } from '../db/storage.ts';

const TTL_MS = 24 * 60 * 60 * 1000;
// Each keyed write deletes up to this many expired records, more than the one it adds, so the
// table stays near one day of keys without a job; the expiry index makes it one seek when none are due.
const PURGE_BATCH = 8;

/** A request with the same key is still being processed in this process. */
export class IdempotencyKeyInUseError extends Error {
  override name = 'IdempotencyKeyInUseError';
}

/** The key was used before with a different request. */
export class IdempotencyKeyReusedError extends Error {
  override name = 'IdempotencyKeyReusedError';
}

/** The part of a response that is stored and replayed: status, Location, ETag and the JSON text of the body. */
export interface RecordedResponse {
  status: number;
  location: string | null;
  etag: string | null;
  body: string;
}

/** What a keyed write did: ran now, or replayed what an earlier request with the key stored. */
export interface IdempotentOutcome {
  replayed: boolean;
  response: RecordedResponse;
}

// JSON with object members in sorted order: a retry that spells the same value differently
// (white space, member order) is the same request.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const members = Object.keys(record).sort().map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
  return `{${members.join(',')}}`;
}

/** A fingerprint of the request: the same JSON value in the same scope gives the same one. */
export function fingerprintOf(scope: string, body: unknown, version = ''): string {
  // No version: the fingerprint as it was before versions existed, so a key stored then still replays in the first version.
  const hash = createHash('sha256').update(scope).update('\n').update(canonicalJson(body));
  if (version !== '') hash.update('\n').update(version);
  return hash.digest('base64url');
}

/**
 * Writes that carry an idempotency key: the write and its stored response commit in one
 * transaction, so neither exists without the other, and a retry replays instead of writing again.
 */
export class IdempotentWrites {
  readonly #now: () => number;
  readonly #inFlight = new Set<string>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Marks `key` as being processed in this process until the returned release is called; a second
   * claim meanwhile throws IdempotencyKeyInUseError. (A request in another process waits for the
   * first one's transaction instead, and then finds the stored response.)
   */
  claim(scope: string, key: string): () => void {
    const slot = `${scope}\n${key}`;
    if (this.#inFlight.has(slot)) throw new IdempotencyKeyInUseError('a request with this key is in flight');
    this.#inFlight.add(slot);
    return () => {
      this.#inFlight.delete(slot);
    };
  }

  /** Inside `tx`: replays the response stored for `key`, or runs `execute` and stores its response with it. */
  async runOnce(
    tx: Repositories,
    target: { scope: string; key: string; fingerprint: string },
    execute: () => Promise<RecordedResponse>,
  ): Promise<IdempotentOutcome> {
    const { scope, key, fingerprint } = target;
    const now = this.#now();
    await tx.idempotency.purgeExpired(now, PURGE_BATCH);
    const stored = await tx.idempotency.find(scope, key, now);
    if (stored !== undefined) {
      if (stored.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError('the key was used with another request');
      const { fingerprint: _, ...response } = stored;
      return { replayed: true, response };
    }
    const response = await execute();
    await tx.idempotency.save(scope, key, { fingerprint, ...response }, now + TTL_MS);
    return { replayed: false, response };
  }
}
