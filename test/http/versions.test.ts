import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// Which version a request gets, and what every answer says of it (docs/versions.md): the header, else
// the default; unknown, malformed and past-sunset versions refused before anything else; Deprecation,
// Sunset and Link while a version goes away; GET /api/versions.

const IDS = VERSIONS.map((spec) => spec.version);
const [FIRST = '', , NEWEST = ''] = [IDS[0], undefined, IDS.at(-1)];
const served = [...IDS].reverse();
type Problem = { code: string; supportedVersions?: string[] };

describe('versions with the defaults', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('without the header every answer under /api is made in the default version and says so, errors included', async () => {
    for (const [path, status] of [['/api/ping', 200], ['/api/products', 200], ['/api/products/999', 404], ['/api/nothing', 404], ['/api/versions', 200]] as const) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get('api-version'), FIRST, path);
      assert.equal(response.headers.get('vary'), 'Api-Version', path);
      assert.equal(response.headers.get('deprecation'), null);
    }
    // Outside /api there is no version.
    assert.equal((await fetch(`${server.url}/other`)).headers.get('api-version'), null);
  });

  test('every version is served by name, on the same paths', async () => {
    for (const id of IDS) {
      const response = await fetch(`${server.url}/api/products`, { headers: { 'api-version': id } });
      assert.equal(response.status, 200, id);
      assert.equal(response.headers.get('api-version'), id);
    }
  });

  test('a malformed or unknown Api-Version is 400 unsupported_api_version before any other check, listing the versions served, without Api-Version', async () => {
    for (const bad of ['2026-11-20', 'latest', '2026-11-21x', ' ', '2026-13-40', 'a'.repeat(300)]) {
      for (const [method, path] of [['GET', '/api/products'], ['POST', '/api/products'], ['GET', '/api/nothing'], ['GET', '/api/ping']] as const) {
        const response = await fetch(`${server.url}${path}`, { method, headers: { 'api-version': bad, 'content-type': 'text/plain' }, ...(method === 'POST' ? { body: 'x' } : {}) });
        assert.equal(response.status, 400, `${bad} ${method} ${path}`);
        const problem = (await response.json()) as Problem;
        assert.equal(problem.code, 'unsupported_api_version');
        assert.deepEqual(problem.supportedVersions, served);
        assert.equal(response.headers.get('api-version'), null);
        assert.equal(response.headers.get('vary'), 'Api-Version');
      }
    }
    // Before a bad body is read or judged: nothing was created.
    const list = (await (await fetch(`${server.url}/api/products`)).json()) as unknown[];
    assert.deepEqual(list, []);
  });

  test('GET /api/versions: open, the same in every version, newest first with summaries, the default', async () => {
    const answers = await Promise.all(IDS.map(async (id) => (await fetch(`${server.url}/api/versions`, { headers: { 'api-version': id } })).text()));
    assert.equal(new Set(answers).size, 1);
    const body = JSON.parse(answers[0] ?? '{}') as { versions: { version: string; summary: string; sunset: null }[]; default: string };
    assert.deepEqual(body.versions.map((v) => v.version), served);
    assert.ok(body.versions.every((v) => v.summary.length > 10 && v.sunset === null));
    assert.equal(body.default, FIRST);
  });

  test('a product created in the newest version is read in the oldest, and one created in the oldest gets the default currency', async () => {
    const made = await postJson(`${server.url}/api/products`, { name: 'Yen lamp', price: { amount: 500, currency: 'JPY' } }, { 'api-version': NEWEST });
    assert.equal(made.status, 201);
    const { id } = (await made.json()) as { id: number };
    const old = (await (await fetch(`${server.url}/api/products/${id}`)).json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(old), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
    assert.equal(old['priceInCents'], 500);
    const created = (await (await postJson(`${server.url}/api/products`, { name: 'Old lamp', priceInCents: 100 })).json()) as { id: number };
    const newest = (await (await fetch(`${server.url}/api/products/${created.id}`, { headers: { 'api-version': NEWEST } })).json()) as Record<string, unknown>;
    assert.deepEqual(newest['price'], { amount: 100, currency: 'EUR' });
  });
});

describe('sunsets', () => {
  let server: TestServer;
  const soon = new Date(Date.now() + 4_000);
  before(async () => {
    server = await startTestServer({ SVC_API_SUNSET: `${FIRST}=${soon.toISOString()}` });
  });
  after(() => server.stop());

  test('until its sunset a version going away answers with Deprecation, Sunset and Link; after it, every request for it is 400 by itself', async () => {
    const before = await fetch(`${server.url}/api/products`);
    assert.equal(before.status, 200);
    assert.match(String(before.headers.get('deprecation')), /^@\d+$/);
    assert.ok(Math.abs(Number(before.headers.get('deprecation')?.slice(1)) * 1000 - Date.now()) < 60_000, 'when this process started with the sunset');
    assert.equal(before.headers.get('sunset'), new Date(Math.floor(soon.getTime() / 1000) * 1000).toUTCString());
    assert.equal(before.headers.get('link'), '</api/docs#versions>; rel="deprecation"');
    assert.equal((await fetch(`${server.url}/api/products`, { headers: { 'api-version': NEWEST } })).headers.get('deprecation'), null);
    await sleep(Math.max(0, soon.getTime() - Date.now()) + 200);
    // Named by the header, or the default: refused, and no longer listed.
    for (const headers of [{}, { 'api-version': FIRST }]) {
      const refused = await fetch(`${server.url}/api/products`, { headers });
      assert.equal(refused.status, 400);
      const problem = (await refused.json()) as Problem;
      assert.equal(problem.code, 'unsupported_api_version');
      assert.deepEqual(problem.supportedVersions, served.filter((id) => id !== FIRST));
    }
    // Readiness and the list of versions are never refused for it: they answer in the newest.
    for (const path of ['/api/ping', '/api/versions']) {
      const answer = await fetch(`${server.url}${path}`);
      assert.deepEqual([answer.status, answer.headers.get('api-version')], [200, NEWEST], path);
    }
    const listed = (await (await fetch(`${server.url}/api/versions`)).json()) as { versions: { version: string }[] };
    assert.ok(!listed.versions.some((v) => v.version === FIRST));
  });
});
