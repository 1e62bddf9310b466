import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { test } from 'node:test';
import { RateLimiter, rateLimitGuard } from '../../src/http/rate-limit.ts';

function limiterAt(limit: number, windowMs: number, maxClients?: number): { limiter: RateLimiter; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const options = { limit, windowMs, now: () => clock.now };
  return { limiter: new RateLimiter(maxClients === undefined ? options : { ...options, maxClients }), clock };
}

// Sends `count` requests at the current instant; returns whether each was allowed.
function burst(limiter: RateLimiter, count: number, client = 'a'): boolean[] {
  return Array.from({ length: count }, () => limiter.take(client).allowed);
}

test('limit 5 per 60 s: five in the first second, then the sixth waits 11 s (one request per 12 s), not 72', () => {
  const { limiter, clock } = limiterAt(5, 60_000);
  const start = clock.now;
  for (const [i, remaining] of [4, 3, 2, 1, 0].entries()) {
    clock.now = start + i * 200;
    // Each request frees up again 12 s after the one before it: one more fits 12 s from now.
    assert.deepEqual(limiter.take('a'), { allowed: true, remaining, resetSeconds: 12 });
  }
  clock.now = start + 1000;
  // TAT is now start + 60 s; a sixth fits when TAT + 12 s − t ≤ 60 s, at t = start + 12 s.
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 11 });
  clock.now = start + 11_999;
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 1 });
  clock.now = start + 12_000;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 0, resetSeconds: 12 });
});

test('limit 5 per 60 s: after five in the first second and silence, second 61 is allowed with the whole burst back', () => {
  const { limiter, clock } = limiterAt(5, 60_000);
  const start = clock.now;
  for (let i = 0; i < 5; i++) {
    clock.now = start + i * 200;
    assert.equal(limiter.take('a').allowed, true);
  }
  clock.now = start + 61_000;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 4, resetSeconds: 12 });
  assert.deepEqual(burst(limiter, 5), [true, true, true, true, false]);
});

test('limit 1 per 1 s: refused at 0.3 s with Retry-After 1, allowed at 1.3 s', () => {
  const { limiter, clock } = limiterAt(1, 1000);
  const start = clock.now;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 0, resetSeconds: 1 });
  clock.now = start + 300;
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 1 });
  clock.now = start + 1300;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 0, resetSeconds: 1 });
});

test('a client silent for exactly one whole window gets the full burst back, one millisecond less is not enough', () => {
  const { limiter, clock } = limiterAt(4, 10_000);
  for (const client of ['a', 'b']) assert.deepEqual(burst(limiter, 5, client), [true, true, true, true, false]);
  clock.now += 9_999;
  assert.deepEqual(burst(limiter, 4, 'a'), [true, true, true, false]);
  clock.now += 1;
  assert.deepEqual(burst(limiter, 5, 'b'), [true, true, true, true, false]);
});

test('refused requests are not counted: retrying every millisecond does not push the wait back', () => {
  const { limiter, clock } = limiterAt(2, 10_000);
  const start = clock.now;
  assert.deepEqual(burst(limiter, 2), [true, true]);
  for (let elapsed = 0; elapsed < 5000; elapsed++) {
    clock.now = start + elapsed;
    const decision = limiter.take('a');
    assert.equal(decision.allowed, false);
    assert.equal(decision.resetSeconds, Math.ceil((5000 - elapsed) / 1000));
  }
  clock.now = start + 5000;
  assert.equal(limiter.take('a').allowed, true);
});

test('an emission interval that is not a whole number of milliseconds is counted exactly', () => {
  // 3 per 10 s: T = 3333⅓ ms. After a burst of 3, the next fits at 3333⅓ ms, so first at 3334.
  const { limiter, clock } = limiterAt(3, 10_000);
  const start = clock.now;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 2, resetSeconds: 4 });
  assert.deepEqual(burst(limiter, 3), [true, true, false]);
  clock.now = start + 3333;
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 1 });
  clock.now = start + 3334;
  // Backlog 10 000 − 3334 + 3333⅓ ms; one more fits 3332⅔ ms from now.
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 0, resetSeconds: 4 });
  clock.now = start + 10_000 + 3334; // a whole window after the last: 3 × 3333⅓ = 10 000 exactly
  assert.deepEqual(burst(limiter, 4), [true, true, true, false]);
});

test('the bound is reached: N at once, then one per T, gives 2N in a closed interval of one window', () => {
  const { limiter, clock } = limiterAt(5, 60_000);
  const start = clock.now;
  let allowed = burst(limiter, 6).filter(Boolean).length;
  for (let k = 1; k <= 5; k++) {
    clock.now = start + k * 12_000 - 1;
    assert.equal(limiter.take('a').allowed, false);
    clock.now = start + k * 12_000;
    allowed += burst(limiter, 2).filter(Boolean).length;
  }
  // 5 at 0 s and one at 12, 24, 36, 48 and 60 s: 10 in [0 s, 60 s], 9 in [0 s, 60 s).
  assert.equal(allowed, 10);
});

test('a clock set back never lengthens a wait beyond one window', () => {
  const { limiter, clock } = limiterAt(2, 10_000);
  assert.deepEqual(burst(limiter, 2), [true, true]);
  clock.now -= 3_600_000;
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 5 });
  clock.now += 3_600_000 + 5000;
  assert.equal(limiter.take('a').allowed, true);
});

test('clients are counted apart', () => {
  const { limiter } = limiterAt(1, 60_000);
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
});

test('memory is bounded: beyond maxClients the least recently seen client is forgotten', () => {
  const { limiter } = limiterAt(1, 60_000, 3);
  for (const client of ['a', 'b', 'c']) limiter.take(client);
  limiter.take('a'); // refused, but now the most recently seen
  limiter.take('d'); // evicts b
  assert.equal(limiter.size, 3);
  assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
  for (let i = 0; i < 10_000; i++) limiter.take(`client-${i}`);
  assert.equal(limiter.size, 3);
});

// docs/operations.md, Rate limits, Memory: "At most 100,000 clients are tracked; beyond that the least recently
// seen is forgotten." A smaller cap would let a client buy a fresh quota by waiting for a few others.
const DOCUMENTED_CAP = 100_000;
const addressOf = (n: number): string => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/**
 * With a limit of 1, `allowed(n)` says whether client n is unknown to the limiter (and counts it).
 * Fills the limiter with clients 0..cap−1, then checks that all of them are still tracked and that
 * client cap evicts exactly the least recently seen.
 */
function assertCapOf(cap: number, allowed: (n: number) => boolean, size: () => number | null): void {
  for (let n = 0; n < cap; n++) assert.equal(allowed(n), true);
  if (size() !== null) assert.equal(size(), cap);
  // Client 0, the least recently seen, is still tracked: refused (and now the most recently seen).
  assert.equal(allowed(0), false, `client 0 was forgotten with only ${cap} clients tracked`);
  assert.equal(allowed(cap), true);
  if (size() !== null) assert.equal(size(), cap);
  // One beyond the cap: client 2, next in line, is still tracked, but client 1, the least recently
  // seen, was forgotten and starts afresh.
  assert.equal(allowed(2), false, `client 2 was forgotten with only ${cap} clients tracked`);
  assert.equal(allowed(1), true, `client 1 was not forgotten beyond ${cap} clients`);
}

test('by default 100,000 clients are tracked, and the least recently seen is forgotten only beyond them', () => {
  const { limiter } = limiterAt(1, 60_000);
  assertCapOf(DOCUMENTED_CAP, (n) => limiter.take(addressOf(n)).allowed, () => limiter.size);
});

test('the guard the app uses keeps the same default of 100,000 clients', () => {
  const guard = rateLimitGuard(1, 60);
  assert.ok(guard !== null);
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  const allowed = (n: number): boolean => {
    try {
      guard(response, addressOf(n));
      return true;
    } catch (error) {
      assert.equal((error as { code?: unknown }).code, 'rate_limited');
      return false;
    }
  };
  assertCapOf(DOCUMENTED_CAP, allowed, () => null);
});

test('peek tells what take would decide and counts nothing, nor tracks a client it has not seen', () => {
  const { limiter } = limiterAt(2, 10_000);
  for (let i = 0; i < 10; i++) assert.equal(limiter.peek('a').allowed, true);
  assert.equal(limiter.size, 0, 'a peek adds no client');
  assert.deepEqual(burst(limiter, 2), [true, true], 'the whole burst is still there');
  assert.equal(limiter.peek('a').allowed, false);
  assert.equal(limiter.peek('b').allowed, true);
  assert.equal(limiter.size, 1);
});
