import { createHash } from 'node:crypto';
import type { WriteBatcher } from '../db/write-batcher.ts';
import { HttpError } from '../http/errors.ts';
import type { Reply } from '../http/reply.ts';
import type { IdempotencyRepository, StoredResponse } from './repository.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;
const TTL_MS = 24 * 60 * 60 * 1000;
// Each keyed create deletes up to this many expired records, more than the one it adds, so the
// table stays near one day of keys without a job; the expiry index makes it one seek when none are due.
const PURGE_BATCH = 8;

/** The Idempotency-Key header as given, null when absent; a malformed one is 400 invalid_header. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header === 'string' && KEY.test(header)) return header;
  throw new HttpError('invalid_header', {
    detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    errors: [{ parameter: 'Idempotency-Key', code: 'invalid', detail: 'must be 1 to 255 characters from U+0021 to U+007E' }],
  });
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

/** A fingerprint of the request: the same JSON value on the same route gives the same one. */
export function fingerprintOf(scope: string, body: unknown): string {
  return createHash('sha256').update(scope).update('\n').update(canonicalJson(body)).digest('base64url');
}

function replay(stored: StoredResponse, fingerprint: string): Reply {
  if (stored.fingerprint !== fingerprint) throw new HttpError('idempotency_key_reused');
  const headers: Record<string, string> = { 'idempotent-replayed': 'true' };
  if (stored.location !== null) headers['location'] = stored.location;
  return { status: stored.status, json: stored.body, headers };
}

/**
 * Runs creates that carry an Idempotency-Key: the created resource and the stored
 * response commit in one transaction (API.md §6), so neither exists without the other.
 */
export class IdempotentCreates {
  readonly #repository: IdempotencyRepository;
  readonly #writes: WriteBatcher;
  readonly #now: () => number;
  readonly #inFlight = new Set<string>();

  constructor(repository: IdempotencyRepository, writes: WriteBatcher, now: () => number = Date.now) {
    this.#repository = repository;
    this.#writes = writes;
    this.#now = now;
  }

  /**
   * Marks `key` as being processed in this process until the returned release is called; a second
   * claim meanwhile is 409 idempotency_key_in_use. (Another process waits for the write lock instead
   * and then finds the stored response.)
   */
  claim(scope: string, key: string): () => void {
    const slot = `${scope}\n${key}`;
    if (this.#inFlight.has(slot)) throw new HttpError('idempotency_key_in_use');
    this.#inFlight.add(slot);
    return () => {
      this.#inFlight.delete(slot);
    };
  }

  /** Replays the stored reply for `key`, or runs `execute` and stores its reply with it, in one transaction. */
  run(scope: string, key: string, fingerprint: string, execute: () => Reply): Promise<Reply> {
    return this.#writes.run(() => this.#runOnce(scope, key, fingerprint, execute));
  }

  // Inside the write transaction: another process may have stored the key a moment ago.
  #runOnce(scope: string, key: string, fingerprint: string, execute: () => Reply): Reply {
    const now = this.#now();
    this.#repository.purgeExpired(now, PURGE_BATCH);
    const stored = this.#repository.find(scope, key, now);
    if (stored !== undefined) return replay(stored, fingerprint);
    const reply = execute();
    const body = reply.json ?? JSON.stringify(reply.body);
    const location = reply.headers?.['location'] ?? null;
    this.#repository.save(scope, key, { fingerprint, status: reply.status, location, body }, now + TTL_MS);
    return { ...reply, json: body };
  }
}
