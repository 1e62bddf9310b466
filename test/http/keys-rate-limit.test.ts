import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, guessedKey, type KeysServer, startKeysServer } from '../support/keys.ts';

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
