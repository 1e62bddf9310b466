import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, assertRecentTimestamp, NON_IDS } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('POST /api/workspaces creates: 201, Location, exactly id, name, createdAt and updatedAt', async () => {
  const response = await postJson(`${server.url}/api/workspaces`, { name: '\tAcme\n' });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  const workspace = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(workspace), ['id', 'name', 'createdAt', 'updatedAt']);
  assert.ok(Number.isSafeInteger(workspace['id']) && (workspace['id'] as number) > 0);
  assert.equal(response.headers.get('location'), `/api/workspaces/${workspace['id']}`);
  assert.equal(workspace['name'], 'Acme');
  assertRecentTimestamp(workspace['createdAt']);
});

test('GET /api/workspaces/{id} returns the same representation as the 201', async () => {
  const created = await (await postJson(`${server.url}/api/workspaces`, { name: 'Globex' })).json();
  const response = await fetch(`${server.url}/api/workspaces/${(created as { id: number }).id}`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(await response.json(), created);
});

test('GET /api/workspaces lists newest first with exactly the documented members', async () => {
  const a = await (await postJson(`${server.url}/api/workspaces`, { name: 'A' })).json();
  const b = await (await postJson(`${server.url}/api/workspaces`, { name: 'B' })).json();
  const response = await fetch(`${server.url}/api/workspaces`);
  assert.equal(response.status, 200);
  const list = (await response.json()) as Record<string, unknown>[];
  assert.deepEqual(list.slice(0, 2), [b, a]);
  for (const item of list) assert.deepEqual(Object.keys(item), ['id', 'name', 'createdAt', 'updatedAt']);
});

test('an unknown id, or one that is not a positive safe integer, is 404', async () => {
  await assertProblem(await fetch(`${server.url}/api/workspaces/424242`), 404, 'not_found', '/api/workspaces/424242');
  for (const id of NON_IDS) {
    await assertProblem(await fetch(`${server.url}/api/workspaces/${id}`), 404, 'not_found', `/api/workspaces/${id}`);
  }
});
