import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { parseWebhookSettings } from '../../src/webhooks/settings.ts';

/** Asserts `env` is refused with one line naming the variable, the value and what is allowed. */
function assertRefused(env: Record<string, string>, name: string, allowed: RegExp): void {
  assert.throws(
    () => parseWebhookSettings(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.ok(!error.message.includes('\n'), 'the message is one line');
      assert.ok(error.message.includes(name), `"${error.message}" names ${name}`);
      assert.ok(error.message.includes(JSON.stringify(env[name])), `"${error.message}" shows the value`);
      assert.match(error.message, allowed);
      return true;
    },
  );
}

test('defaults: 10 s, 5s,5m,30m,2h,5h,10h,10h, private targets refused', () => {
  const expected = { timeoutMs: 10_000, retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], allowPrivate: false };
  assert.deepEqual(parseWebhookSettings({}), expected);
  assert.deepEqual(parseWebhookSettings({ SVC_WEBHOOK_TIMEOUT_MS: '', SVC_WEBHOOK_RETRY_SCHEDULE: ' ', SVC_WEBHOOK_ALLOW_PRIVATE: '' }), expected);
});

test('values as given', () => {
  assert.deepEqual(parseWebhookSettings({ SVC_WEBHOOK_TIMEOUT_MS: '250', SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,1s', SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }), {
    timeoutMs: 250,
    retryScheduleMs: [100, 1_000],
    allowPrivate: true,
  });
  assert.equal(parseWebhookSettings({ SVC_WEBHOOK_ALLOW_PRIVATE: ' TRUE ' }).allowPrivate, true);
  assert.equal(parseWebhookSettings({ SVC_WEBHOOK_ALLOW_PRIVATE: 'false' }).allowPrivate, false);
  assert.equal(parseWebhookSettings({ SVC_WEBHOOK_TIMEOUT_MS: '100' }).timeoutMs, 100);
  assert.equal(parseWebhookSettings({ SVC_WEBHOOK_TIMEOUT_MS: '300000' }).timeoutMs, 300_000);
});

test('an invalid value stops start-up with one line naming the variable, the value and what is allowed', () => {
  for (const value of ['99', '300001', '10s', '-1', '1.5', 'abc']) assertRefused({ SVC_WEBHOOK_TIMEOUT_MS: value }, 'SVC_WEBHOOK_TIMEOUT_MS', /an integer from 100 to 300000/);
  for (const value of ['5', '5s,,5m', '1d', '0s', Array(21).fill('1s').join(',')]) {
    assertRefused({ SVC_WEBHOOK_RETRY_SCHEDULE: value }, 'SVC_WEBHOOK_RETRY_SCHEDULE', /1 to 20 comma-separated durations .*ms, s, m or h/);
  }
  for (const value of ['yes', '1', 'on', 'truthy']) assertRefused({ SVC_WEBHOOK_ALLOW_PRIVATE: value }, 'SVC_WEBHOOK_ALLOW_PRIVATE', /true or false/);
});
