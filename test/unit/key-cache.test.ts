import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap } from '../../src/keys/lru-map.ts';

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

test('an LruMap reads its most recent entry again without moving it, and an entry set since is newer', () => {
  const map = new LruMap<string, number>(2);
  map.set('a', 1);
  assert.equal(map.get('a'), 1);
  map.set('b', 2);
  assert.equal(map.get('a'), 1, 'a is read after b was set: the most recent again');
  assert.equal(map.get('a'), 1);
  map.set('c', 3);
  assert.equal(map.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual([map.get('a'), map.get('c')], [1, 3]);
  map.delete('c');
  map.set('d', 4);
  map.set('e', 5);
  assert.equal(map.get('a'), undefined, 'a was older than d');
});

test('an LruMap stays at its capacity whatever number of distinct keys goes through it', () => {
  const map = new LruMap<number, number>(100);
  for (let i = 0; i < 100_000; i++) map.set(i, i);
  assert.equal(map.size, 100);
  assert.equal(map.get(99_999), 99_999);
  assert.equal(map.get(99_899), undefined);
  assert.throws(() => new LruMap(0), RangeError);
});
