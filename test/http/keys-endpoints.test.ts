import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type KeysServer, startKeysServer } from '../support/keys.ts';
import { patchJson, postJson, startTestServer } from '../support/server.ts';

type Json = Record<string, unknown>;
const KEY_SHAPE = /^svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/;

describe('the keys endpoints (SVC_AUTH=keys, admin)', () => {
  let server: KeysServer;
  let auth: Record<string, string>;
  before(async () => {
    server = await startKeysServer({ SVC_BODY_LIMIT_BYTES: '1024' });
    auth = bearer(server.admin.key);
  });
  after(() => server.stop());

  const create = (body: unknown, headers: Record<string, string> = {}): Promise<Response> => postJson(`${server.url}/api/keys`, body, { ...auth, ...headers });
  const read = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(`${server.url}${path}`, { headers: { ...auth, ...headers } });
  const revoke = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(`${server.url}${path}`, { method: 'DELETE', headers: { ...auth, ...headers } });
  const keyRows = (): Promise<number> => server.database.countRows('api_keys');

  test('POST makes a key: 201 with exactly the ApiKey members and the key, Location and ETag; reads never show the key', async () => {
    const response = await create({ name: ' deploys ', scopes: ['write', 'read'], expiresAt: '2099-01-31T12:00:00+01:00' });
    assert.equal(response.status, 201);
    const body = (await response.json()) as Json;
    assert.deepEqual(Object.keys(body), ['id', 'name', 'scopes', 'createdAt', 'expiresAt', 'revokedAt', 'key']);
    assert.match(String(body['key']), KEY_SHAPE);
    assert.equal(String(body['key']).slice(4, 16), body['id']);
    assert.deepEqual([body['name'], body['scopes'], body['expiresAt'], body['revokedAt']], ['deploys', ['read', 'write'], '2099-01-31T11:00:00.000Z', null]);
    assert.match(String(body['createdAt']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(response.headers.get('location'), `/api/keys/${body['id']}`);
    assert.equal(response.headers.get('etag'), '"1"');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const { key: _key, ...apiKey } = body;
    const got = await read(`/api/keys/${body['id']}`);
    assert.deepEqual([got.status, got.headers.get('etag'), await got.json()], [200, '"1"', apiKey]);
    const listed = (await (await read('/api/keys')).json()) as Json[];
    assert.deepEqual(listed[0], apiKey);
    assert.ok(listed.every((entry) => !('key' in entry) && !('digest' in entry)));
  });

  test('every field error at once, each with its code and pointer, and nothing made', async () => {
    const before = await keyRows();
    const response = await create({ name: '', scopes: ['read', 'root', 7, 'read'], expiresAt: '2000-01-01T00:00:00Z', owner: 'me' });
    assert.equal(response.status, 422);
    const problem = (await response.json()) as Json;
    assert.equal(problem['code'], 'validation_failed');
    assert.deepEqual((problem['errors'] as Json[]).map((error) => `${error['pointer']} ${error['code']}`), [
      '/name too_short', '/scopes/1 invalid_enum', '/scopes/2 type', '/scopes/3 duplicate', '/expiresAt too_small', '/owner unknown_field',
    ]);
    const cases: [unknown, string[]][] = [
      [{}, ['/name required', '/scopes required']],
      [{ name: 'x'.repeat(201), scopes: [] }, ['/name too_long', '/scopes too_short']],
      [{ name: 'a\u0007b', scopes: 'admin', expiresAt: 'next week' }, ['/name invalid_characters', '/scopes type', '/expiresAt type']],
      [{ name: 7, scopes: ['admin'], expiresAt: 1 }, ['/name type', '/expiresAt type']],
      [['name'], [' type']],
    ];
    for (const [body, expected] of cases) {
      const answer = await create(body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.deepEqual(((await answer.json()) as { errors: Json[] }).errors.map((error) => `${error['pointer']} ${error['code']}`), expected);
    }
    assert.equal(await keyRows(), before);
  });

  test('an Idempotency-Key is 400 invalid_header (the key is never stored for a replay); 415, 413 and 400 as other creates; nothing made', async () => {
    const before = await keyRows();
    const good = { name: 'x', scopes: ['read'] };
    const refused = await create(good, { 'idempotency-key': 'retry-1' });
    assert.equal(refused.status, 400);
    const problem = (await refused.json()) as Json;
    assert.equal(problem['code'], 'invalid_header');
    assert.deepEqual((problem['errors'] as Json[]).map((error) => error['parameter']), ['Idempotency-Key']);
    assert.equal((await create(good, { 'idempotency-key': 'k'.repeat(300) })).status, 400);
    assert.equal(await server.database.countRows('idempotency_keys'), 0, 'nothing stored for a replay');
    const send = (body: string, contentType: string | null): Promise<Response> =>
      fetch(`${server.url}/api/keys`, { method: 'POST', headers: { ...auth, ...(contentType === null ? {} : { 'content-type': contentType }) }, body });
    assert.equal((await send(JSON.stringify(good), 'text/plain')).status, 415);
    assert.equal((await send(JSON.stringify(good), null)).status, 415);
    assert.equal((await send(JSON.stringify({ ...good, name: 'x'.repeat(2_000) }), 'application/json')).status, 413);
    for (const broken of ['{"name":', '', '\u00ff']) {
      const answer = await send(broken, 'application/json; charset=utf-8');
      assert.equal(answer.status, 400, broken);
      assert.equal(((await answer.json()) as Json)['code'], 'invalid_json');
    }
    assert.equal(await keyRows(), before);
  });

  test('the list is newest first in keyset pages with a Link to the next; a bad limit or cursor is 400', async () => {
    for (let i = 0; i < 5; i++) await create({ name: `paged ${i}`, scopes: ['read'] });
    const all = (await (await read('/api/keys?limit=200')).json()) as Json[];
    const seen: unknown[] = [];
    let path: string | undefined = '/api/keys?limit=2';
    while (path !== undefined) {
      const page: Response = await read(path);
      assert.equal(page.status, 200);
      seen.push(...((await page.json()) as Json[]));
      path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
      if (path !== undefined) assert.match(path, /^\/api\/keys\?limit=2&cursor=[A-Za-z0-9_-]+$/);
    }
    assert.deepEqual(seen, all);
    assert.deepEqual(all.slice(0, 5).map((key) => key['name']), ['paged 4', 'paged 3', 'paged 2', 'paged 1', 'paged 0']);
    assert.equal(all.at(-1)?.['id'], server.admin.id, 'the first key made is the last listed');
    const productCursor = /cursor=([^>]+)>/.exec((await read('/api/products?limit=1')).headers.get('link') ?? '')?.[1];
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=bad!', `cursor=${productCursor ?? 'none'}`]) {
      const answer = await read(`/api/keys?${query}`);
      assert.equal(answer.status, 400, query);
      assert.equal(((await answer.json()) as Json)['code'], 'invalid_query');
    }
  });

  test('GET, PATCH and DELETE of an id that is not a key, or not of a key id\'s shape, are 404', async () => {
    for (const id of ['AAAAAAAAAAAA', 'abc', '1', server.admin.key, `${server.admin.id}x`, server.admin.id.toLowerCase() === server.admin.id ? server.admin.id.toUpperCase() : server.admin.id.toLowerCase()]) {
      const path = `/api/keys/${encodeURIComponent(id)}`;
      for (const answer of [await read(path), await patchJson(`${server.url}${path}`, { name: 'x' }, auth), await revoke(path)]) {
        assert.equal(answer.status, 404, id);
        assert.equal(((await answer.json()) as Json)['detail'], 'No API key has this id.');
      }
    }
    const allow = (await fetch(`${server.url}/api/keys/${server.admin.id}`, { method: 'PUT', headers: auth })).headers.get('allow');
    assert.equal(allow, 'GET, PATCH, DELETE, HEAD');
  });

  test('DELETE revokes: 204, the key stays listed with revokedAt and ETag "2"; a second DELETE is 204 and keeps the first time', async () => {
    const made = (await (await create({ name: 'to revoke', scopes: ['write'] })).json()) as Json;
    const path = `/api/keys/${made['id']}`;
    assert.equal((await read(path, { 'if-none-match': '"1"' })).status, 304);
    const stale = await revoke(path, { 'if-match': '"2"' });
    assert.equal(stale.status, 412);
    assert.equal(await server.database.countRows('api_keys', 'revoked_at IS NOT NULL'), 0);
    assert.equal((await revoke(path, { 'if-match': '"1"' })).status, 204);
    const revoked = await read(path);
    const body = (await revoked.json()) as Json;
    assert.equal(revoked.headers.get('etag'), '"2"');
    assert.match(String(body['revokedAt']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const again = await revoke(path);
    assert.equal(again.status, 204);
    assert.equal(await again.text(), '');
    assert.deepEqual((await (await read(path)).json()) as Json, body);
    assert.deepEqual(((await (await read('/api/keys')).json()) as Json[]).find((key) => key['id'] === made['id']), body);
    const unusable = await fetch(`${server.url}/api/products`, { headers: bearer(String(made['key'])) });
    assert.equal(unusable.status, 401);
  });
});

test('with SVC_AUTH=off the keys endpoints do not exist: 404', async () => {
  const server = await startTestServer();
  try {
    for (const method of ['GET', 'POST']) assert.equal((await fetch(`${server.url}/api/keys`, { method })).status, 404);
    assert.equal((await fetch(`${server.url}/api/keys/AAAAAAAAAAAA`)).status, 404);
  } finally {
    await server.stop();
  }
});
