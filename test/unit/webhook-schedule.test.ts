import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter } from '../../src/webhooks/retry-after.ts';
import { JITTER, MAX_RETRY_AFTER_MS, nextAttemptDelayMs, parseDurationList } from '../../src/webhooks/schedule.ts';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const DEFAULT = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];

test('durations: ms, s, m and h, comma-separated, white space around entries allowed', () => {
  assert.deepEqual(parseDurationList('5s,5m,30m,2h,5h,10h,10h'), { ok: true, delaysMs: DEFAULT });
  assert.deepEqual(parseDurationList('250ms'), { ok: true, delaysMs: [250] });
  assert.deepEqual(parseDurationList(' 1ms , 2s,3m ,4h'), { ok: true, delaysMs: [1, 2 * S, 3 * M, 4 * H] });
  assert.deepEqual(parseDurationList('168h'), { ok: true, delaysMs: [168 * H] });
  assert.deepEqual(parseDurationList(Array(20).fill('1s').join(',')), { ok: true, delaysMs: Array(20).fill(S) });
});

test('durations: anything else is refused with a reason', () => {
  for (const raw of ['', '5', '5x', '5 s', '5S', '1.5h', '-5s', '0s', '0ms', '169h', '5s,,5m', '5s,', ',5s', '1d', 's', '5sec', '0x10s', '1e3ms', Array(21).fill('1s').join(',')]) {
    const parsed = parseDurationList(raw);
    assert.equal(parsed.ok, false, raw);
    if (!parsed.ok) assert.ok(parsed.problem.length > 0);
  }
});

test('the default schedule: eight attempts over about 28 hours, then none', () => {
  const noJitter = (): number => 0;
  const delays = [1, 2, 3, 4, 5, 6, 7].map((made) => nextAttemptDelayMs(DEFAULT, made, null, noJitter));
  assert.deepEqual(delays, DEFAULT);
  assert.equal(nextAttemptDelayMs(DEFAULT, 8, null, noJitter), null);
  assert.equal(nextAttemptDelayMs(DEFAULT, 100, null, noJitter), null);
  assert.equal(nextAttemptDelayMs(DEFAULT, 0, null, noJitter), 0);
  assert.equal(Math.round(DEFAULT.reduce((a, b) => a + b) / H), 28);
  assert.equal(nextAttemptDelayMs([100], 1, null, noJitter), 100);
  assert.equal(nextAttemptDelayMs([100], 2, null, noJitter), null);
});

test('jitter: a thousand failed deliveries do not retry in the same millisecond, and none earlier than the schedule', () => {
  for (const made of [1, 2, 7]) {
    const base = DEFAULT[made - 1] ?? 0;
    const delays = Array.from({ length: 1000 }, () => nextAttemptDelayMs(DEFAULT, made, null, Math.random) ?? -1);
    assert.ok(new Set(delays).size > 500, `${new Set(delays).size} distinct delays of 1000`);
    assert.ok(delays.every((delay) => delay >= base && delay < base * (1 + JITTER)), 'each within [delay, delay + 20%)');
    assert.ok(Math.max(...delays) - Math.min(...delays) > base * JITTER * 0.8, 'spread over most of the 20%');
  }
  assert.equal(nextAttemptDelayMs([10 * S], 1, null, () => 0.999_999), 10 * S + 2 * S - 1);
});

test('Retry-After moves an attempt later, never earlier, and holds one back a day at most', () => {
  const noJitter = (): number => 0;
  assert.equal(nextAttemptDelayMs(DEFAULT, 1, 60 * S, noJitter), 60 * S, 'longer than 5s: the receiver wins');
  assert.equal(nextAttemptDelayMs(DEFAULT, 2, 60 * S, noJitter), 5 * M, 'shorter than 5m: the schedule wins');
  assert.equal(nextAttemptDelayMs(DEFAULT, 1, 0, noJitter), 5 * S);
  assert.equal(nextAttemptDelayMs(DEFAULT, 1, -5, noJitter), 5 * S);
  assert.equal(nextAttemptDelayMs(DEFAULT, 1, 30 * 24 * H, noJitter), MAX_RETRY_AFTER_MS);
  assert.equal(nextAttemptDelayMs(DEFAULT, 7, 60 * S, noJitter), 10 * H);
  assert.equal(nextAttemptDelayMs(DEFAULT, 8, 60 * S, noJitter), null, 'a Retry-After adds no attempt');
  for (let i = 0; i < 1000; i++) {
    const retryAfter = Math.floor(Math.random() * 10 * M);
    const made = 1 + (i % 7);
    const delay = nextAttemptDelayMs(DEFAULT, made, retryAfter, Math.random) ?? -1;
    assert.ok(delay >= retryAfter && delay >= (DEFAULT[made - 1] ?? 0), `${delay} for Retry-After ${retryAfter} after attempt ${made}`);
  }
});

test('Retry-After: delay-seconds or an HTTP-date, anything else ignored', () => {
  const now = Date.parse('2026-11-26T09:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120 * S);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 09:02:00 GMT', now), 2 * M);
  assert.equal(parseRetryAfter('Thursday, 26-Nov-26 09:00:30 GMT', now), 30 * S);
  assert.equal(parseRetryAfter('Thu Nov 26 09:00:05 2026', now), 5 * S);
  assert.equal(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now), 0, 'a date in the past asks for no wait');
  for (const junk of [undefined, '', '-1', '1.5', 'soon', '2026-11-26T10:00:00Z', '12abc', 'Thu, 99 Nov 2026 09:00:00 GMT']) {
    assert.equal(parseRetryAfter(junk, now), null, String(junk));
  }
  assert.equal(parseRetryAfter('99999999999999999999', now), 10 * 365 * 24 * H, 'a huge number stays a number');
});
