import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashRounds } from './crash-run.ts';
import { fullRun, integerFromEnv } from './seeded-random.ts';

// Short in CI (3 kills); RELIABILITY_FULL=1 or CRASH_KILLS=n for the long run (scripts/crash-test.ts).
const kills = integerFromEnv('CRASH_KILLS', fullRun() ? 20 : 3);
const seed = integerFromEnv('CRASH_SEED', 20_261_122);

test(`SIGKILL under concurrent creates, PATCHes and DELETEs, ${kills} times: every 201, 200 and 204 survives, keyed retries land once`, { timeout: 600_000 }, async (t) => {
  t.diagnostic(`seed ${seed} (replay with CRASH_SEED=${seed})`);
  const figures = await runCrashRounds({ kills, seed, log: (message) => t.diagnostic(message) });
  t.diagnostic(JSON.stringify(figures));
  assert.equal(figures.kills, kills);
  // The kill must land while writes are under way, or the run proved nothing.
  assert.ok(figures.acknowledged > 0, 'no create was acknowledged before the kills');
  assert.ok(figures.keyedRetries > 0, 'no keyed create was retried');
  assert.ok(figures.changesAcknowledged > 0, 'no change was acknowledged before the kills');
});
