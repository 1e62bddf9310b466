import type { ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { HttpError } from './errors.ts';

/** What the limiter decided for one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still available now (the `r` of the RateLimit field). */
  remaining: number;
  /** Seconds until the client's counting window rolls over (`t`), or until a retry can succeed when refused. */
  resetSeconds: number;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  /** Most clients tracked at once; the least recently seen is forgotten beyond it. */
  maxClients?: number;
  now?: () => number;
}

interface Counter {
  windowStart: number;
  previous: number;
  current: number;
}

/**
 * Sliding-window counter per client: the count of the current window plus the previous window's
 * count weighted by how much of it still overlaps the last `windowMs`. Windows start at a client's
 * first request. Refused requests are not counted, so a client that keeps retrying is not locked out.
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  // A Map keeps insertion order; re-inserting on each hit makes its first key the least recently seen.
  readonly #clients = new Map<string, Counter>();

  constructor(options: RateLimiterOptions) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#maxClients = options.maxClients ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** How many clients are tracked now (bounded by `maxClients`). */
  get size(): number {
    return this.#clients.size;
  }

  /** Counts one request of `client` when it fits under the limit. */
  take(client: string): RateLimitDecision {
    const now = this.#now();
    const counter = this.#counterOf(client, now);
    const elapsed = now - counter.windowStart;
    const used = counter.previous * (1 - elapsed / this.#windowMs) + counter.current;
    if (used + 1 > this.#limit) {
      return { allowed: false, remaining: 0, resetSeconds: Math.max(1, Math.ceil(this.#msUntilOneFits(counter, elapsed) / 1000)) };
    }
    counter.current += 1;
    const remaining = Math.max(0, Math.floor(this.#limit - used - 1));
    return { allowed: true, remaining, resetSeconds: Math.max(1, Math.ceil((this.#windowMs - elapsed) / 1000)) };
  }

  #counterOf(client: string, now: number): Counter {
    let counter = this.#clients.get(client);
    if (counter === undefined) {
      if (this.#clients.size >= this.#maxClients) this.#clients.delete(this.#clients.keys().next().value as string);
      counter = { windowStart: now, previous: 0, current: 0 };
    } else {
      this.#clients.delete(client);
      const windows = Math.floor((now - counter.windowStart) / this.#windowMs);
      if (windows > 0) {
        counter.previous = windows === 1 ? counter.current : 0;
        counter.current = 0;
        counter.windowStart += windows * this.#windowMs;
      }
    }
    this.#clients.set(client, counter);
    return counter;
  }

  // The wait until previous·(1 − elapsed/window) + current ≤ limit − 1, in this window or the next.
  #msUntilOneFits(counter: Counter, elapsed: number): number {
    const room = this.#limit - 1;
    const window = this.#windowMs;
    if (counter.current <= room && counter.previous > 0) {
      const wait = window * (1 - (room - counter.current) / counter.previous) - elapsed;
      if (wait < window - elapsed) return Math.max(0, wait);
    }
    // Next window: this window's count becomes the weighted one.
    const intoNext = counter.current > room ? window * (1 - room / counter.current) : 0;
    return window - elapsed + intoNext;
  }
}

/** The key a client is counted under: its address, or its /64 for IPv6 (one host usually owns a whole /64). */
export function rateLimitKey(address: string): string {
  const bare = address.split('%')[0] ?? '';
  if (isIP(bare) !== 6) return address;
  const [head = '', tail] = bare.split('::');
  const groupsIn = (parts: string[]): number => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - groupsIn(headParts) - groupsIn(tailParts)).fill('0');
  const groups = [...headParts, ...zeros, ...tailParts].slice(0, 4);
  return `${groups.map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/** A per-client limit of `limit` requests per `windowS` seconds, or null when SVC_RATE_LIMIT is 0. */
export type RateLimitGuard = (res: ServerResponse, clientAddress: string) => void;

/**
 * Counts each request against its client; sets `RateLimit-Policy` and `RateLimit` (IETF httpapi
 * draft syntax) on every counted response, and throws 429 `rate_limited` with `Retry-After` when over.
 */
export function rateLimitGuard(limit: number, windowS: number, maxClients?: number): RateLimitGuard | null {
  if (limit <= 0) return null;
  const limiter = new RateLimiter(maxClients === undefined ? { limit, windowMs: windowS * 1000 } : { limit, windowMs: windowS * 1000, maxClients });
  const policy = `"default";q=${limit};w=${windowS}`;
  return (res, clientAddress) => {
    const decision = limiter.take(rateLimitKey(clientAddress));
    const current = `"default";r=${decision.remaining};t=${decision.resetSeconds}`;
    res.setHeader('ratelimit-policy', policy);
    res.setHeader('ratelimit', current);
    if (decision.allowed) return;
    const retryAfter = String(decision.resetSeconds);
    throw new HttpError('rate_limited', {
      detail: `More than ${limit} requests in ${windowS} s; retry in ${retryAfter} s.`,
      headers: { 'retry-after': retryAfter },
    });
  };
}
