import type { ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { HttpError } from './errors.ts';

/** What the limiter decided for one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests the client could send right now, after this one (the `r` of the RateLimit field). */
  remaining: number;
  /** Whole seconds, rounded up, until one more than `remaining` could be sent (`t`); the Retry-After when refused. */
  resetSeconds: number;
}

export interface RateLimiterOptions {
  limit: number;
  /** A whole number of milliseconds. */
  windowMs: number;
  /** Most clients tracked at once; the least recently seen is forgotten beyond it. */
  maxClients?: number;
  /** The clock in milliseconds; a monotonic one by default, so a clock set back never lengthens a wait. */
  now?: () => number;
}

/**
 * Tick counts since the limiter's epoch stay about this small (the epoch then moves to now), so that
 * with a window of at most 2^52 ticks every sum of ticks is an exact integer in a double.
 */
export const REBASE_AFTER_TICKS = 2 ** 51;

const monotonicMs = (): number => performance.now();

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * GCRA (generic cell rate algorithm) per client: one number, the theoretical arrival time TAT.
 * With T = window / limit, a request at time t is allowed when max(TAT, t) + T − t ≤ window, and
 * then TAT becomes max(TAT, t) + T; a refused request changes nothing. So an idle client has a burst
 * of `limit`, then one request per T; a client idle for a whole window is always allowed, and a
 * refused one waits max(TAT, t) + T − window − t ≤ T ≤ window.
 */
export class RateLimiter {
  // Time is counted in ticks of gcd(limit, windowMs) / limit ms, so T and the window are whole
  // numbers of ticks and no rounding ever builds up.
  readonly #ticksPerMs: number;
  readonly #interval: number;
  readonly #window: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  #epochMs: number;
  #lastMs: number;
  // client → TAT in ticks since #epochMs. A Map keeps insertion order; re-inserting on each request
  // makes its first key the least recently seen.
  readonly #clients = new Map<string, number>();

  constructor(options: RateLimiterOptions) {
    const divisor = gcd(options.limit, options.windowMs);
    this.#ticksPerMs = options.limit / divisor;
    this.#interval = options.windowMs / divisor;
    this.#window = this.#interval * options.limit;
    this.#maxClients = options.maxClients ?? 100_000;
    this.#now = options.now ?? monotonicMs;
    this.#epochMs = this.#lastMs = Math.floor(this.#now());
  }

  /** How many clients are tracked now (bounded by `maxClients`). */
  get size(): number {
    return this.#clients.size;
  }

  /** Counts one request of `client` when it conforms; a refused request is not counted. */
  take(client: string): RateLimitDecision {
    return this.#decide(client, true);
  }

  /** What take() would decide now, without counting anything. */
  peek(client: string): RateLimitDecision {
    return this.#decide(client, false);
  }

  #decide(client: string, counting: boolean): RateLimitDecision {
    const now = this.#ticksNow();
    const stored = this.#clients.get(client);
    const start = Math.max(stored ?? now, now);
    const allowed = start + this.#interval - now <= this.#window;
    const tat = allowed ? start + this.#interval : start;
    // Refused requests still count as being seen, or a flooding client would be evicted and start afresh.
    if (counting) this.#remember(client, tat);
    else if (!allowed) this.#remember(client, start);
    const backlog = tat - now;
    const remaining = Math.floor((this.#window - backlog) / this.#interval);
    // One more request fits once the backlog has shrunk to window − (remaining + 1)·T.
    const untilNext = backlog + (remaining + 1) * this.#interval - this.#window;
    return { allowed, remaining, resetSeconds: Math.ceil(untilNext / (this.#ticksPerMs * 1000)) };
  }

  #remember(client: string, tat: number): void {
    if (!this.#clients.delete(client) && this.#clients.size >= this.#maxClients) {
      this.#clients.delete(this.#clients.keys().next().value as string);
    }
    this.#clients.set(client, tat);
  }

  #ticksNow(): number {
    // Never backwards: a clock set back must not make a backlog look longer than a window.
    const ms = Math.max(this.#lastMs, Math.floor(this.#now()));
    this.#lastMs = ms;
    if ((ms - this.#epochMs) * this.#ticksPerMs > REBASE_AFTER_TICKS) this.#rebase(ms);
    return (ms - this.#epochMs) * this.#ticksPerMs;
  }

  // Moves the epoch to `ms`. A client whose TAT has passed is forgotten: it would start afresh anyway.
  #rebase(ms: number): void {
    const shift = (ms - this.#epochMs) * this.#ticksPerMs;
    this.#epochMs = ms;
    for (const [client, tat] of this.#clients) {
      if (tat <= shift) this.#clients.delete(client);
      else this.#clients.set(client, tat - shift);
    }
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

/**
 * A per-client limit of `limit` requests per `windowS` seconds, or null when SVC_RATE_LIMIT is 0.
 * With `peekOnly`, the request is refused when its client is over the limit now, but not counted.
 */
export type RateLimitGuard = (res: ServerResponse, clientAddress: string, peekOnly?: boolean) => void;

/**
 * Counts each request against its client; sets `RateLimit-Policy` and `RateLimit` (IETF httpapi
 * draft syntax) on every counted response, and throws 429 `rate_limited` with `Retry-After` when over.
 */
export function rateLimitGuard(limit: number, windowS: number, maxClients?: number): RateLimitGuard | null {
  if (limit <= 0) return null;
  const limiter = new RateLimiter(maxClients === undefined ? { limit, windowMs: windowS * 1000 } : { limit, windowMs: windowS * 1000, maxClients });
  const policy = `"default";q=${limit};w=${windowS}`;
  return (res, clientAddress, peekOnly = false) => {
    const client = rateLimitKey(clientAddress);
    const decision = peekOnly ? limiter.peek(client) : limiter.take(client);
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
