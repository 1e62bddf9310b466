import { hash } from 'node:crypto';
import type { Caller } from '../callers/caller.ts';

interface Verdict {
  readonly caller: Caller;
  /** The second (Unix time) from which the token is expired, skew included. */
  readonly usableUntil: number;
}

/** How many verified tokens are remembered: the callers of a busy process, at a few hundred bytes each. */
export const VERDICT_CACHE_SIZE = 10_000;

/**
 * The callers of tokens already verified, until they expire: a token is immutable, so its verdict only
 * changes with the clock (checked on every use) or with the issuer's keys (the owner clears the cache
 * when they change). Only accepted tokens are kept, so only the issuer can add entries, never a flood of
 * forgeries. Keyed by the SHA-256 of the whole token: a hit needs that exact token, and memory does
 * not grow with token size. Least recently used entries go first.
 */
export class VerdictCache {
  readonly #entries = new Map<string, Verdict>();
  readonly #size: number;

  constructor(size: number = VERDICT_CACHE_SIZE) {
    this.#size = size;
  }

  /** The caller `token` was verified as, if it was and is still unexpired at `now` (seconds). */
  get(token: string, now: number): Caller | undefined {
    const key = hash('sha256', token, 'base64url');
    const verdict = this.#entries.get(key);
    if (verdict === undefined) return undefined;
    this.#entries.delete(key);
    if (now >= verdict.usableUntil) return undefined;
    this.#entries.set(key, verdict);
    return verdict.caller;
  }

  /** Remembers that `token` stands for `caller` until `usableUntil` (seconds). */
  set(token: string, caller: Caller, usableUntil: number): void {
    const key = hash('sha256', token, 'base64url');
    this.#entries.delete(key);
    this.#entries.set(key, { caller, usableUntil });
    if (this.#entries.size <= this.#size) return;
    const oldest = this.#entries.keys().next();
    if (oldest.done !== true) this.#entries.delete(oldest.value);
  }

  /** Forgets every verdict (the issuer's keys changed). */
  clear(): void {
    this.#entries.clear();
  }
}
