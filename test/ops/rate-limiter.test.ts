import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter } from '../../src/http/rate-limit.ts';

function limiterAt(limit: number, windowMs: number, maxClients?: number): { limiter: RateLimiter; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const options = { limit, windowMs, now: () => clock.now };
  return { limiter: new RateLimiter(maxClients === undefined ? options : { ...options, maxClients }), clock };
}

test('exactly `limit` requests fit in a first window, with remaining counting down', () => {
  const { limiter, clock } = limiterAt(3, 60_000);
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 2, resetSeconds: 60 });
  clock.now += 10_000;
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 1, resetSeconds: 50 });
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 0, resetSeconds: 50 });
  assert.equal(limiter.take('a').allowed, false);
});

test('a refused request says when one will fit, and is not counted', () => {
  const { limiter, clock } = limiterAt(2, 10_000);
  limiter.take('a');
  limiter.take('a');
  // Next window starts at +10 s with the previous count 2 weighted down: 2·(1 − x/10) ≤ 1 at x = 5 s.
  assert.deepEqual(limiter.take('a'), { allowed: false, remaining: 0, resetSeconds: 15 });
  for (let i = 0; i < 50; i++) limiter.take('a');
  clock.now += 14_900;
  assert.equal(limiter.take('a').allowed, false);
  clock.now += 100;
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, false);
});

test('the previous window counts in proportion to its overlap (sliding window)', () => {
  const { limiter, clock } = limiterAt(10, 10_000);
  for (let i = 0; i < 10; i++) assert.equal(limiter.take('a').allowed, true);
  clock.now += 12_000; // 20% into the next window: the previous 10 weigh 8
  assert.deepEqual(limiter.take('a'), { allowed: true, remaining: 1, resetSeconds: 8 });
  assert.equal(limiter.take('a').allowed, true);
  assert.equal(limiter.take('a').allowed, false);
  clock.now += 30_000; // two windows later, nothing from before weighs
  assert.equal(limiter.take('a').remaining, 9);
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
