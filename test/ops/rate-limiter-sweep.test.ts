import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REBASE_AFTER_TICKS, type RateLimitDecision, RateLimiter } from '../../src/http/rate-limit.ts';
import { type Random, seededRandom } from '../reliability/seeded-random.ts';

// Seeded randomized sweeps over limits, windows and arrival patterns. Every failure message names
// the seed and the scenario, so a failure can be replayed.
const SEED = 0x5eed_0010;

const pick = <T>(rng: Random, items: readonly T[]): T => rng.pick(items);

// One client's requests against a limiter on a fake clock, checking every decision as it comes.
class Run {
  readonly allowedAt: number[] = [];
  refused = 0;
  readonly clock = { now: 0 };
  readonly limiter: RateLimiter;
  readonly limit: number;
  readonly windowMs: number;
  readonly label: string;
  last: { at: number; decision: RateLimitDecision } = { at: 0, decision: { allowed: true, remaining: 0, resetSeconds: 0 } };

  constructor(limit: number, windowMs: number, label: string) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.label = label;
    this.limiter = new RateLimiter({ limit, windowMs, now: () => this.clock.now });
  }

  send(count: number): RateLimitDecision[] {
    return Array.from({ length: count }, () => this.#take());
  }

  #take(): RateLimitDecision {
    const now = this.clock.now;
    const decision = this.limiter.take('client');
    const where = `${this.label} at ${now} ms: ${JSON.stringify(decision)}`;
    assert.ok(decision.resetSeconds >= 1 && decision.resetSeconds <= this.windowMs / 1000, `t within 1..window, ${where}`);
    assert.ok(Number.isInteger(decision.remaining) && decision.remaining >= 0 && decision.remaining < this.limit, where);
    if (decision.allowed) {
      this.allowedAt.push(now);
    } else {
      this.refused += 1;
      assert.equal(decision.remaining, 0, where);
      // Retry-After is never more than one emission interval T = window / limit, rounded up.
      assert.ok(decision.resetSeconds <= Math.ceil(this.windowMs / this.limit / 1000), `retry within T, ${where}`);
      // Refused only after `limit` allowed requests in the last window: so silence for a window always suffices.
      const recent = this.allowedAt.filter((at) => at > now - this.windowMs).length;
      assert.ok(recent >= this.limit, `refused with only ${recent} in the last window, ${where}`);
    }
    this.last = { at: now, decision };
    return decision;
  }
}

const count = (decisions: RateLimitDecision[]): number => decisions.filter((decision) => decision.allowed).length;
const expectPrefix = (decisions: RateLimitDecision[], allowed: number, where: string): void =>
  assert.deepEqual(decisions.map((decision) => decision.allowed), decisions.map((_, i) => i < allowed), where);

// One step of an arrival pattern; the probes check that r, t and Retry-After are exact.
function step(run: Run, rng: Random): void {
  const { at, decision } = run.last;
  const interval = run.windowMs / run.limit;
  const where = `${run.label}, after ${JSON.stringify(decision)} at ${at} ms`;
  switch (rng.int(8)) {
    case 0: // a burst at the same instant
      run.send(1 + rng.int(run.limit + 2));
      break;
    case 1: // arrivals closer together than T
      run.clock.now += rng.int(Math.ceil(interval) + 1);
      run.send(1);
      break;
    case 2: // anywhere within a window
      run.clock.now += rng.int(run.windowMs + 1);
      run.send(1);
      break;
    case 3: // silent for exactly one window since the last allowed request (refusals don't count): the whole burst is back
      run.clock.now = Math.max(run.clock.now, (run.allowedAt.at(-1) ?? 0) + run.windowMs);
      expectPrefix(run.send(run.limit + 1), run.limit, `full burst after a silent window, ${where}`);
      break;
    case 4: // r is exact: r more fit right now, and no more
      expectPrefix(run.send(decision.remaining + 1), decision.remaining, `r more now, ${where}`);
      break;
    case 5: // t is exact: after t seconds one more than r fits (Retry-After, when refused)
      run.clock.now = at + decision.resetSeconds * 1000;
      assert.equal(count(run.send(decision.remaining + 1)), decision.remaining + 1, `r + 1 after t, ${where}`);
      break;
    default: // and a second before t, not yet
      run.clock.now = at + (decision.resetSeconds - 1) * 1000;
      expectPrefix(run.send(decision.remaining + 1), decision.remaining, `only r a second before t, ${where}`);
  }
}

// Over all pairs of allowed requests: k requests allowed within a closed interval of length L
// never exceed limit + floor(limit · L / window). For L = 0 that is one burst of `limit`, for
// L < T still `limit` (no double burst at any edge); for L = window it is 2·limit, 2·limit − 1 when
// the interval is half-open.
function assertIntervalBound(run: Run): void {
  const times = run.allowedAt;
  for (let i = 0; i < times.length; i++) {
    for (let j = i + 1; j < times.length; j++) {
      const span = (times[j] as number) - (times[i] as number);
      const bound = run.limit + Math.floor((run.limit * span) / run.windowMs);
      assert.ok(j - i + 1 <= bound, `${run.label}: ${j - i + 1} allowed within ${span} ms, bound ${bound}`);
      if (span < run.windowMs) assert.ok(j - i + 1 <= 2 * run.limit - 1, `${run.label}: half-open window`);
    }
  }
}

test('randomized sweep: both promises, exact r, t and Retry-After, and the interval bound', () => {
  const rng = seededRandom(SEED);
  let refused = 0;
  for (let scenario = 0; scenario < 160; scenario++) {
    const limit = pick(rng, [1, 2, 3, 5, 7, 12, 60, 100]);
    const windowMs = 1000 * pick(rng, [1, 2, 3, 7, 60, 3600]);
    const run = new Run(limit, windowMs, `seed ${SEED} scenario ${scenario} (${limit} per ${windowMs} ms)`);
    run.send(1);
    while (run.allowedAt.length < 400) step(run, rng);
    assertIntervalBound(run);
    refused += run.refused;
  }
  // The refusal checks above ran often enough to mean something.
  assert.ok(refused > 10_000, `only ${refused} refusals`);
});

// GCRA in exact rational arithmetic: times are BigInts in units of 1/limit ms, with no common
// divisor, no epoch and no doubles; the limiter under test must agree with it on every decision.
class ReferenceGcra {
  readonly #tat = new Map<string, bigint>();
  readonly #interval: bigint;
  readonly #window: bigint;
  readonly #perSecond: bigint;

  constructor(limit: number, windowMs: number) {
    this.#interval = BigInt(windowMs);
    this.#window = BigInt(windowMs) * BigInt(limit);
    this.#perSecond = BigInt(limit) * 1000n;
  }

  take(client: string, nowMs: number): RateLimitDecision {
    const now = BigInt(nowMs) * (this.#perSecond / 1000n);
    const before = this.#tat.get(client) ?? now;
    const start = before > now ? before : now;
    const allowed = start + this.#interval - now <= this.#window;
    const tat = allowed ? start + this.#interval : start;
    this.#tat.set(client, tat);
    const remaining = (this.#window - (tat - now)) / this.#interval;
    const untilNext = tat - now + (remaining + 1n) * this.#interval - this.#window;
    const resetSeconds = (untilNext + this.#perSecond - 1n) / this.#perSecond;
    return { allowed, remaining: Number(remaining), resetSeconds: Number(resetSeconds) };
  }
}

const HOUR = 3_600_000;
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

// A limiter and the reference side by side on one fake clock.
function pair(limit: number, windowMs: number): { clock: { now: number }; take: (client: string, where: string) => RateLimitDecision } {
  const clock = { now: 1_700_000_000_000 };
  const limiter = new RateLimiter({ limit, windowMs, now: () => clock.now });
  const reference = new ReferenceGcra(limit, windowMs);
  return {
    clock,
    take(client, where) {
      const decision = limiter.take(client);
      assert.deepEqual(decision, reference.take(client, clock.now), where);
      return decision;
    },
  };
}

test('randomized sweep against exact arithmetic, with limits up to 10^9', () => {
  const rng = seededRandom(SEED + 1);
  const configs = [[1, 1000], [3, 10_000], [7, 60_000], [30_000_001, 24 * HOUR], [999_999_937, HOUR], [1_000_000_000, 24 * HOUR]] as const;
  for (const [limit, windowMs] of configs) {
    const { clock, take } = pair(limit, windowMs);
    for (let event = 0; event < 1500; event++) {
      clock.now += pick(rng, [0, rng.int(1000), rng.int(windowMs + 1), rng.int(12 * HOUR)]);
      const client = `c${rng.int(4)}`;
      const requests = 1 + (rng.int(20) === 0 ? rng.int(3000) : rng.int(Math.min(limit + 2, 30)));
      for (let i = 0; i < requests; i++) take(client, `seed ${SEED + 1}, ${limit} per ${windowMs} ms, event ${event}, request ${i}`);
    }
  }
});

test('exact across epoch moves, with backlogs in flight (fine ticks move the epoch every ~40 min to ~21 h)', () => {
  const rng = seededRandom(SEED + 2);
  let carried = 0;
  for (const [limit, windowMs] of [[30_000_001, 24 * HOUR], [999_999_937, HOUR], [1_000_000_007, 1000]] as const) {
    const { clock, take } = pair(limit, windowMs);
    // White-box: the first request once (now − epoch) · ticks per ms passes REBASE_AFTER_TICKS moves the epoch to now.
    const ticksPerMs = limit / gcd(limit, windowMs);
    const period = Math.floor(REBASE_AFTER_TICKS / ticksPerMs);
    let epoch = clock.now;
    for (let move = 0; move < 12; move++) {
      clock.now = epoch + period - rng.int(5);
      let movedAt = -1;
      for (let event = 0; movedAt < 0 || event < movedAt + 3; event++) {
        const where = `seed ${SEED + 2}, ${limit} per ${windowMs} ms, move ${move}, event ${event}`;
        const moves = clock.now - epoch > period;
        const burst = 1 + rng.int(2000);
        for (let i = 0; i < burst; i++) {
          const decision = take(i % 2 === 0 ? 'busy' : `c${rng.int(3)}`, where);
          if (moves && i === 0 && decision.remaining < limit - 1) carried += 1;
        }
        if (moves) [epoch, movedAt] = [clock.now, event];
        clock.now += rng.int(2);
      }
    }
  }
  // The client 'busy' still had a backlog right when the epoch moved, most of the time.
  assert.ok(carried >= 18, `a backlog crossed only ${carried} epoch moves`);
});
