import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, guessedKey, type KeysServer, startKeysServer } from '../support/keys.ts';
import { scrape } from '../support/scrape.ts';

// A flood of random well-formed keys (valid checksums, ids that name no key), at least 10,000 and for
// at least 5 s (so the good key is read again in the middle of it, at least once), while a good key
// keeps working. The database reads it causes are counted from outside, by api_key_lookups_total:
// at most the budget's burst (20) plus 20 a second, plus the good key's own re-read every 2 s.
const FLOOD = 10_000;
const WORKERS = 50;
const MIN_MS = 5_000;

describe('a flood of random keys', () => {
  let server: KeysServer;
  before(async () => {
    server = await startKeysServer({ SVC_METRICS_PORT: '0', SVC_LOG_LEVEL: 'warn' });
  });
  after(() => server.stop());

  const lookups = async (): Promise<{ found: number; absent: number; unverifiable: number }> => {
    const s = await scrape(server.metricsUrl ?? '');
    return { found: s.value('api_key_lookups_total', { result: 'found' }), absent: s.value('api_key_lookups_total', { result: 'absent' }), unverifiable: s.value('callers_refused_total', { reason: 'unverifiable' }) };
  };

  test('costs a bounded number of database reads, and the good key never gets a 401', async () => {
    const good = await server.newKey({ name: 'good', scopes: ['read'] });
    assert.equal((await fetch(`${server.url}/api/products`, { headers: bearer(good.key) })).status, 200);
    const before = await lookups();
    const floodStatuses = new Map<number, number>();
    const goodStatuses = new Map<number, number>();
    const count = (map: Map<number, number>, status: number): void => void map.set(status, (map.get(status) ?? 0) + 1);
    let sent = 0;
    let flooding = true;
    const startedAt = performance.now();
    const attacker = async (): Promise<void> => {
      while (sent < FLOOD || performance.now() - startedAt < MIN_MS) {
        sent++;
        const response = await fetch(`${server.url}/api/products`, { headers: bearer(guessedKey()) });
        await response.arrayBuffer();
        count(floodStatuses, response.status);
      }
    };
    const goodCaller = async (): Promise<void> => {
      while (flooding) {
        const response = await fetch(`${server.url}/api/products`, { headers: bearer(good.key) });
        await response.arrayBuffer();
        count(goodStatuses, response.status);
      }
    };
    const goodOne = goodCaller();
    await Promise.all(Array.from({ length: WORKERS }, attacker));
    const seconds = (performance.now() - startedAt) / 1000;
    flooding = false;
    await goodOne;
    const after = await lookups();

    assert.deepEqual([...floodStatuses], [[401, sent]], 'every guess refused');
    assert.ok(sent >= FLOOD);
    assert.deepEqual([...goodStatuses.keys()], [200], 'the good key was never refused');
    assert.ok((goodStatuses.get(200) ?? 0) >= 10, `the good key kept working: ${goodStatuses.get(200)} answers`);
    const absentReads = after.absent - before.absent;
    const goodReads = after.found - before.found;
    // The server runs in this process, on the same clock: its flood lies within these `seconds`. +1 for rounding.
    const bound = 20 + 20 * seconds + 1;
    assert.ok(absentReads >= 20, `the guesses did reach the database, counted: ${absentReads} reads`);
    assert.ok(absentReads <= bound, `${absentReads} reads for ${FLOOD} guesses in ${seconds.toFixed(1)} s: more than ${bound.toFixed(0)}`);
    assert.ok(goodReads >= 1 && goodReads <= Math.ceil(seconds / 2) + 1, `${goodReads} re-reads of the good key in ${seconds.toFixed(1)} s`);
    assert.ok(after.unverifiable - before.unverifiable >= sent - bound, 'the guesses past the budget were refused without a read');
    console.log(`# ${sent} guesses in ${seconds.toFixed(1)} s: ${absentReads} database reads (bound ${bound.toFixed(0)}), good key: ${goodStatuses.get(200)} x 200, ${goodReads} re-reads`);
  });
});
