import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap } from '../../src/keys/lru-map.ts';
import { TokenBucket } from '../../src/keys/token-bucket.ts';

test('an LruMap holds at most its capacity and forgets the least recently used entry first', () => {
  const map = new LruMap<string, number>(3);
  map.set('a', 1);
  map.set('b', 2);
  map.set('c', 3);
  assert.equal(map.get('a'), 1, 'reading a makes it the most recent');
  map.set('d', 4);
  assert.equal(map.size, 3);
  assert.equal(map.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual(['a', 'c', 'd'].map((key) => map.get(key)), [1, 3, 4]);
  map.set('c', 30);
  map.set('e', 5);
  assert.equal(map.get('a'), undefined, 'a was least recent after c was set again and d, c read');
  assert.equal(map.get('c'), 30);
  map.delete('c');
  assert.equal(map.get('c'), undefined);
  assert.equal(map.size, 2);
});

test('an LruMap stays at its capacity whatever number of distinct keys goes through it', () => {
  const map = new LruMap<number, number>(100);
  for (let i = 0; i < 100_000; i++) map.set(i, i);
  assert.equal(map.size, 100);
  assert.equal(map.get(99_999), 99_999);
  assert.equal(map.get(99_899), undefined);
  assert.throws(() => new LruMap(0), RangeError);
});

test('a token bucket gives its burst at once, then its rate, never more than the burst after a long pause', () => {
  let now = 1_000;
  const bucket = new TokenBucket({ perSecond: 20, burst: 20, now: () => now });
  const takes = (n: number): number => Array.from({ length: n }, () => bucket.take()).filter(Boolean).length;
  assert.equal(takes(100), 20, 'the burst, then nothing at the same instant');
  now += 50;
  assert.equal(takes(10), 1, '50 ms at 20 a second is one token');
  now += 1_000;
  assert.equal(takes(100), 20);
  now += 3_600_000;
  assert.equal(takes(100), 20, 'a long pause refills to the burst, no more');
  // Over ten seconds of steady demand, at most burst + rate x time.
  let granted = 0;
  for (let ms = 0; ms < 10_000; ms += 10) {
    now += 10;
    granted += takes(5);
  }
  assert.ok(granted <= 20 * 10 + 1 && granted >= 20 * 10 - 1, `granted ${granted}`);
});

test('a token bucket whose clock steps back refills nothing', () => {
  let now = 10_000;
  const bucket = new TokenBucket({ perSecond: 10, burst: 1, now: () => now });
  assert.equal(bucket.take(), true);
  now -= 5_000;
  assert.equal(bucket.take(), false);
  now += 100;
  assert.equal(bucket.take(), true, '100 ms later, at 10 a second, one token');
  assert.throws(() => new TokenBucket({ perSecond: 0, burst: 1, now: () => now }), RangeError);
});
