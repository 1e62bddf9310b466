import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { callAt, LONGEST_TIMER_MS } from '../../src/http/streamed-reply.ts';

// A stream ends at its access token's exp (docs/events.md), however far ahead: setTimeout holds at most
// 2^31 - 1 ms (about 24.8 days), and a longer wait fires after 1 ms. On timers the test moves.

const DAY_MS = 86_400_000;

test('callAt waits out 30 days, more than one timer holds: not at 24.8 days, not a millisecond early, and at the instant', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000 });
  try {
    let calls = 0;
    callAt(1_000 + 30 * DAY_MS, () => calls++);
    mock.timers.tick(LONGEST_TIMER_MS);
    assert.equal(calls, 0, 'not when the first timer runs out');
    mock.timers.tick(30 * DAY_MS - LONGEST_TIMER_MS - 1);
    assert.equal(calls, 0, '1 ms before');
    mock.timers.tick(1);
    assert.equal(calls, 1);
    mock.timers.tick(60 * DAY_MS);
    assert.equal(calls, 1, 'once');
  } finally {
    mock.timers.reset();
  }
});

test('callAt: a time already past is called at once; a cancelled one never, even after a timer was re-armed', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10 * DAY_MS });
  try {
    let past = 0;
    callAt(DAY_MS, () => past++);
    mock.timers.tick(0);
    assert.equal(past, 1);
    let cancelled = 0;
    const cancel = callAt(10 * DAY_MS + 100 * DAY_MS, () => cancelled++);
    mock.timers.tick(LONGEST_TIMER_MS + 1);
    cancel();
    mock.timers.tick(200 * DAY_MS);
    assert.equal(cancelled, 0);
  } finally {
    mock.timers.reset();
  }
});
