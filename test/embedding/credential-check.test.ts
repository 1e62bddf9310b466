import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { type CredentialCheck, type Identified, refused } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import { StorageBusyError, StorageUnavailableError } from '../../src/db/errors.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { continuedRequest } from '../support/raw-http.ts';
import { capturingLogger } from '../support/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// An embedding program's own kind of credential: `reader-…` may read, `writer-…` may write, nothing else passes.
const check: CredentialCheck = {
  identify(credential): Identified | Promise<Identified> {
    const [role, name] = credential.split('-');
    // A check whose own storage cannot answer: a 503 to retry, not a 401 that would send the caller away.
    if (role === 'unreachable') return Promise.reject(new StorageUnavailableError('the credential store does not answer'));
    if (role === 'busy') return Promise.reject(new StorageBusyError('the credential store is busy'));
    if (role === 'broken') return Promise.reject(new Error('a bug in the check'));
    if (role === 'reader' && name !== undefined) return { ok: true, caller: { kind: 'key', id: name, scopes: [Scope.read] } };
    if (role === 'writer' && name !== undefined) return { ok: true, caller: { kind: 'key', id: name, scopes: [Scope.write] } };
    return refused('unknown');
  },
};

interface Served {
  url: string;
  database: TestDatabase;
  logs: Record<string, unknown>[];
  flush(): void;
  stop(): Promise<void>;
}

async function serve(env: Record<string, string>): Promise<Served> {
  const database = await createTestDatabase();
  const db = database.open();
  const config = loadConfig({ ...database.env, SVC_AUTH: 'keys', ...env });
  const logs: Record<string, unknown>[] = [];
  const app = createApp({ db, config, credentials: check, logger: capturingLogger(config, logs) });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    database,
    logs,
    flush: () => app.logger.flush(),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeDatabase(db);
      await database.drop();
    },
  };
}

const as = (credential: string): Record<string, string> => ({ authorization: `Bearer ${credential}` });

describe('createApp with SVC_AUTH=keys and an embedding program\'s own credential check', () => {
  let served: Served;
  let url = '';
  let database: TestDatabase;
  before(async () => {
    served = await serve({});
    ({ url, database } = served);
  });
  after(() => served.stop());

  test('a stranger learns nothing beyond the open endpoints: 401 before 404 and 405, with a bare Bearer challenge', async () => {
    for (const [method, path] of [['GET', '/api/nowhere'], ['PUT', '/api/products'], ['GET', '/api/products']] as const) {
      const response = await fetch(`${url}${path}`, { method });
      assert.equal(response.status, 401, `${method} ${path}`);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
    }
    assert.equal((await fetch(`${url}/api/ping`)).status, 200);
    assert.equal((await fetch(`${url}/api/openapi.json`)).status, 200);
  });

  test('a refused credential gets invalid_token, and a known caller then meets 404 and 405', async () => {
    const refusedOne = await fetch(`${url}/api/products`, { headers: as('stranger-x') });
    assert.equal(refusedOne.status, 401);
    assert.match(refusedOne.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    assert.equal((await fetch(`${url}/api/nowhere`, { headers: as('reader-r1') })).status, 404);
    assert.equal((await fetch(`${url}/api/products`, { method: 'PUT', headers: as('reader-r1') })).status, 405);
  });

  test('a scope too small is 403 insufficient_scope and changes nothing', async () => {
    const before = await database.countRows('products');
    const response = await fetch(`${url}/api/products`, {
      method: 'POST',
      headers: { ...as('reader-r2'), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', priceInCents: 1 }),
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="write"');
    assert.equal(await database.countRows('products'), before);
  });

  test('an Idempotency-Key belongs to its caller: two callers, one key, two products', async () => {
    const create = (who: string, name: string) =>
      fetch(`${url}/api/products`, {
        method: 'POST',
        headers: { ...as(who), 'content-type': 'application/json', 'idempotency-key': 'shared-key' },
        body: JSON.stringify({ name, priceInCents: 5 }),
      });
    const first = await create('writer-w1', 'one');
    const second = await create('writer-w2', 'one');
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), null);
    assert.notEqual(first.headers.get('location'), second.headers.get('location'));
    const replay = await create('writer-w1', 'one');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.headers.get('location'), first.headers.get('location'));
  });

  test('an Idempotency-Key in flight holds only its own caller: another caller with the same key is served meanwhile', async () => {
    const body = JSON.stringify({ name: 'concurrent', priceInCents: 5 });
    const create = (who: string) =>
      fetch(`${url}/api/products`, { method: 'POST', headers: { ...as(who), 'content-type': 'application/json', 'idempotency-key': 'concurrent-key' }, body });
    const head = ['POST /api/products HTTP/1.1', 'Host: localhost', 'Authorization: Bearer writer-w3', 'Content-Type: application/json'];
    head.push(`Content-Length: ${Buffer.byteLength(body)}`, 'Idempotency-Key: concurrent-key', 'Connection: close');
    // Caller w3's request is held in flight: its headers are in, its body not yet sent.
    const slow = await continuedRequest(url, head.join('\r\n'), body);
    const retry = await create('writer-w3');
    assert.equal(retry.status, 409, 'its own retry meanwhile');
    await retry.arrayBuffer();
    const other = await create('writer-w4');
    assert.equal(other.status, 201, 'another caller with the same key is not held up');
    await other.arrayBuffer();
    const first = await slow.finish();
    assert.equal(first.status, 201);
    assert.notEqual(first.headers['location'], other.headers.get('location'));
  });

  test('a check that rejects with a storage error is 503 with Retry-After; any other rejection is a 500 that says nothing', async () => {
    const cases = [
      ['unreachable-x', 503, '2', 'unavailable'],
      ['busy-x', 503, '1', 'unavailable'],
      ['broken-x', 500, null, 'internal_error'],
    ] as const;
    for (const [credential, status, retryAfter, code] of cases) {
      const response = await fetch(`${url}/api/products`, { headers: as(credential) });
      assert.equal(response.status, status, credential);
      assert.equal(response.headers.get('retry-after'), retryAfter, credential);
      const problem = (await response.json()) as { code: string; detail: string };
      assert.equal(problem.code, code);
      assert.doesNotMatch(problem.detail, /credential store|bug/);
    }
  });

  test('the access log names the caller, never the credential', async () => {
    await fetch(`${url}/api/products?limit=1`, { headers: as('reader-logged') });
    served.flush();
    const { logs } = served;
    const line = logs.find((entry) => (entry['req'] as { url?: string } | undefined)?.url === '/api/products?limit=1');
    assert.deepEqual(line?.['caller'], { kind: 'key', id: 'logged' });
    assert.doesNotMatch(JSON.stringify(logs), /reader-logged/);
  });
});

describe('the rate limit with callers: per caller when identified, per address otherwise', () => {
  let served: Served;
  before(async () => {
    served = await serve({ SVC_RATE_LIMIT: '3' });
  });
  after(() => served.stop());

  test('one caller at its limit stops neither another caller nor the same address with other credentials', async () => {
    const list = (who: string): Promise<number> => fetch(`${served.url}/api/products`, { headers: as(who) }).then((r) => r.status);
    for (let i = 0; i < 3; i++) assert.equal(await list('reader-busy'), 200);
    assert.equal(await list('reader-busy'), 429);
    assert.equal(await list('reader-calm'), 200);
  });

  test('requests without valid credentials are counted per address, and a 429 comes before the 401', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${served.url}/api/products`, { headers: as('stranger-x') })).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    assert.equal((await fetch(`${served.url}/api/products`, { headers: as('reader-calm') })).status, 200);
  });
});
