import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { BIN, runBin } from '../support/cli.ts';
import { closeFloodAgents, getFrom, loopbackAddresses, startFlood } from '../support/flood.ts';
import { bearer, type KeysServer, startKeysServer } from '../support/keys.ts';
import { scrape } from '../support/scrape.ts';

// Invented keys in the real shape (a valid checksum, an id no key has) from 100 source addresses at
// full speed, while a key made DURING the flood by bin/keys.js (behind the server's back, as on another
// node) is used from another address: every one of its requests, the first included, is 200. What the
// flood cost the database is counted by the server's own counters of its key statements (one count per
// SQL statement run: api_key_lookups_total for reads of one key, api_key_id_refreshes_total for reads of
// the ids of new keys). The bound (docs/security.md, How a key is checked): no read of a key for an id
// that no key has, and at most one read of new ids per 250 ms, whatever the flood's size.
const ADDRESSES = loopbackAddresses(100);
const IN_FLIGHT = 100;
const MIN_FLOOD_MS = 5_000;
const RATE_LIMIT = 30;

describe('a flood of invented keys from many addresses (SVC_AUTH=keys)', () => {
  let server: KeysServer;
  before(async () => {
    server = await startKeysServer({ SVC_METRICS_PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_RATE_LIMIT: String(RATE_LIMIT), SVC_RATE_LIMIT_WINDOW_S: '600' });
  });
  after(async () => {
    closeFloodAgents();
    await server.stop();
  });

  const reads = async (): Promise<Record<string, number>> => {
    const s = await scrape(server.metricsUrl ?? '');
    const lookup = (result: string): number => s.value('api_key_lookups_total', { result });
    const refresh = (result: string): number => s.value('api_key_id_refreshes_total', { result });
    return { found: lookup('found'), absent: lookup('absent'), failed: lookup('failed'), refreshes: refresh('done') + refresh('failed') };
  };

  test('a key made by bin/keys.js during the flood is accepted on its first request and every one after; the flood costs a bounded number of reads', async () => {
    const before = await reads();
    const startedAt = performance.now();
    const flood = startFlood(`${server.url}/api/products`, ADDRESSES, IN_FLIGHT);
    // And from one address, which soon goes over its limit: 429 before any check, so no database work.
    const single = startFlood(`${server.url}/api/products`, ['127.0.9.9'], 20);
    await sleep(1_000);
    const made = await runBin(BIN.keys, ['create', '--name', 'made during the flood', '--scopes', 'read'], { env: server.database.env });
    assert.equal(made.code, 0, made.stderr);
    const key = made.stdout.trim();
    const answers: number[] = [];
    // From an address of its own, paced to stay within its own quota (one per key, RATE_LIMIT per window).
    while (performance.now() - startedAt < MIN_FLOOD_MS + 1_000 || answers.length < 10) {
      answers.push((await getFrom(`${server.url}/api/products`, bearer(key), '127.0.0.2')).status);
      await sleep(250);
    }
    const result = await flood.stop();
    const fromOne = await single.stop();
    const after = await reads();
    const seconds = (performance.now() - startedAt) / 1000;

    assert.deepEqual([...new Set(answers)], [200], `every request of the key made during the flood: ${answers.join()}`);
    assert.ok(answers.length <= RATE_LIMIT);
    assert.deepEqual([...result.statuses.keys()].filter((status) => status !== 401 && status !== 429), [], 'every invented key refused, or its address limited');
    assert.ok(result.sent >= 1_000, `a flood: ${result.sent} requests`);
    assert.deepEqual([...fromOne.statuses.keys()].sort(), [401, 429], 'one address: refused, then limited');
    assert.equal(fromOne.statuses.get(401), RATE_LIMIT, 'its quota, then 429');
    // The server runs in this process, on the same clock: everything it did lies within `seconds`.
    const refreshBound = 2 + Math.ceil(seconds * 4);
    const refreshes = (after['refreshes'] ?? 0) - (before['refreshes'] ?? 0);
    assert.equal((after['absent'] ?? 0) - (before['absent'] ?? 0), 0, 'no read of a key for an id no key has');
    assert.ok(refreshes >= 1 && refreshes <= refreshBound, `${refreshes} reads of new ids in ${seconds.toFixed(1)} s: bound ${refreshBound}`);
    const found = (after['found'] ?? 0) - (before['found'] ?? 0);
    assert.ok(found >= 1 && found <= 2 + Math.ceil(seconds / 2), `${found} reads of the new key: its first, then one per 2 s`);
    console.log(
      `# ${result.sent} invented keys from ${ADDRESSES.length} addresses in ${result.seconds.toFixed(1)} s (${[...result.statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}), ` +
        `${fromOne.sent} from one address (${[...fromOne.statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}): ` +
        `${refreshes} reads of new ids (bound ${refreshBound}), 0 reads of absent keys; the new key: ${answers.length} x 200, ${found} reads`,
    );
  });
});
