import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throttled } from '../../src/log/throttled.ts';

test('throttled writes at most once per interval and counts what it held back', () => {
  let now = 1_000;
  const lines: [string, number][] = [];
  const warn = throttled<string>(5_000, (value, heldBack) => lines.push([value, heldBack]), () => now);
  warn('first');
  for (const at of [1_001, 3_000, 5_999]) {
    now = at;
    warn(`held ${at}`);
  }
  now = 6_000;
  warn('second');
  now = 6_001;
  warn('held again');
  now = 20_000;
  warn('third');
  assert.deepEqual(lines, [['first', 0], ['second', 3], ['third', 1]]);
});
