import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BIN, runBin } from '../support/cli.ts';
import { closeFloodAgents, getFrom } from '../support/flood.ts';
import { bearer, guessedKey, type KeysServer, keyWithOtherSecret, startKeysServer } from '../support/keys.ts';
import { scrape } from '../support/scrape.ts';

// SVC_RATE_LIMIT with API keys: each valid key has a quota of its own, whatever address it comes from;
// requests without a valid key share their address's quota, so bad keys cannot spend a good one's.
describe('per-key rate limits (SVC_AUTH=keys, SVC_RATE_LIMIT=3)', () => {
  let server: KeysServer;
  before(async () => {
    server = await startKeysServer({ SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '600' });
  });
  after(() => server.stop());

  const list = async (headers: Record<string, string>): Promise<number> => (await fetch(`${server.url}/api/products`, { headers })).status;
  const statuses = async (headers: Record<string, string>, n: number): Promise<number[]> => {
    const seen: number[] = [];
    for (let i = 0; i < n; i++) seen.push(await list(headers));
    return seen;
  };

  test('two keys from one address each get their own quota; bad keys and no key are counted per address', async () => {
    const one = await server.newKey({ name: 'one', scopes: ['read'] });
    const two = await server.newKey({ name: 'two', scopes: ['read'] });
    assert.deepEqual(await statuses(bearer(one.key), 4), [200, 200, 200, 429]);
    assert.deepEqual(await statuses(bearer(two.key), 4), [200, 200, 200, 429]);
    // The address's own quota: the admin's two POSTs above were the admin key's, not the address's.
    assert.deepEqual([await list(bearer(guessedKey())), await list({}), await list(bearer('nonsense')), await list(bearer(guessedKey()))], [401, 401, 401, 429]);
    const three = await server.newKey({ name: 'three', scopes: ['read'] });
    assert.deepEqual(await statuses(bearer(three.key), 3), [200, 200, 200], 'a fresh key is not slowed by the address that sent bad ones');
    const limited = await fetch(`${server.url}/api/products`, { headers: bearer(one.key) });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await fetch(`${server.url}/api/ping`)).status, 200, 'readiness is never limited');
  });
});

// The limit per address comes before any database work a credential not yet known to be valid would
// cause: reads of new key ids, reads of a key. Counted by the server's own counters of those statements.
describe('an address over its limit (SVC_AUTH=keys, SVC_RATE_LIMIT=3)', () => {
  let server: KeysServer;
  before(async () => {
    server = await startKeysServer({ SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '600', SVC_METRICS_PORT: '0' });
  });
  after(() => server.stop());

  const statements = async (): Promise<number> => {
    const s = await scrape(server.metricsUrl ?? '');
    const sum = (name: string, results: string[]): number => results.reduce((total, result) => total + s.value(name, { result }), 0);
    return sum('api_key_lookups_total', ['found', 'absent', 'failed']) + sum('api_key_id_refreshes_total', ['done', 'failed']);
  };

  test('gets 429 before its credential costs any database work, while a key never read yet works from another address', async () => {
    // A key made behind the server's back: the server has read neither its id nor the key.
    const made = await runBin(BIN.keys, ['create', '--name', 'unread', '--scopes', 'read'], { env: server.database.env });
    assert.equal(made.code, 0, made.stderr);
    const unread = made.stdout.trim();
    const id = unread.slice(4, 16);
    const list = async (key: string): Promise<number> => (await fetch(`${server.url}/api/products`, { headers: bearer(key) })).status;
    assert.deepEqual([await list(guessedKey()), await list(guessedKey()), await list(guessedKey())], [401, 401, 401]);
    const before = await statements();
    // Invented ids, a real id with a wrong secret, the real key: none of it is read for this address.
    const answers = [await list(guessedKey()), await list(keyWithOtherSecret(id)), await list(guessedKey()), await list(unread)];
    assert.deepEqual(answers, [429, 429, 429, 429]);
    assert.equal(await statements(), before, 'no statement ran for them');
    assert.equal((await getFrom(`${server.url}/api/products`, bearer(unread), '127.0.0.3')).status, 200, 'the same key from an address within its limit');
    assert.ok((await statements()) > before, 'which read it');
    closeFloodAgents();
  });
});
