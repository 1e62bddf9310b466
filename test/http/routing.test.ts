import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let productId = 0;
let workspaceId = 0;
before(async () => {
  server = await startTestServer();
  productId = ((await (await postJson(`${server.url}/api/products`, { name: 'P', priceInCents: 1 })).json()) as { id: number }).id;
  workspaceId = ((await (await postJson(`${server.url}/api/workspaces`, { name: 'W' })).json()) as { id: number }).id;
});
after(() => server.stop());

test('an unknown path is 404 not_found, whatever the method', async () => {
  for (const path of ['/', '/api', '/api/nothing', '/api/products/1/extra', '/API/products', '/api/products/', '/api/ping/', '/favicon.ico']) {
    const problem = await assertProblem(await fetch(`${server.url}${path}`), 404, 'not_found', path);
    assert.equal(problem['title'], 'Not Found');
  }
  await assertProblem(await fetch(`${server.url}/api/nothing`, { method: 'DELETE' }), 404, 'not_found', '/api/nothing');
});

test('the query string is not part of the path, and not part of instance', async () => {
  await assertProblem(await fetch(`${server.url}/api/nothing?x=1`), 404, 'not_found', '/api/nothing');
  assert.equal((await fetch(`${server.url}/api/ping?x=1`)).status, 200);
});

test('a known path with another method is 405 with Allow', async () => {
  const cases: [string, string, string[]][] = [
    ['DELETE', '/api/products', ['GET', 'HEAD', 'POST']],
    ['PUT', '/api/workspaces', ['GET', 'HEAD', 'POST']],
    ['POST', '/api/ping', ['GET', 'HEAD']],
    ['PUT', `/api/products/${productId}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
    ['POST', `/api/workspaces/${workspaceId}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
    ['OPTIONS', '/api/products', ['GET', 'HEAD', 'POST']],
    // The path shape is known even when the id is not.
    ['POST', '/api/products/abc', ['DELETE', 'GET', 'HEAD', 'PATCH']],
  ];
  for (const [method, path, allow] of cases) {
    const response = await fetch(`${server.url}${path}`, { method });
    const allowed = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).sort();
    assert.deepEqual(allowed, allow, `${method} ${path}`);
    const problem = await assertProblem(response, 405, 'method_not_allowed', path);
    assert.equal(problem['title'], 'Method Not Allowed');
  }
});

test('HEAD on every GET route has the GET status and headers and no body', async () => {
  const paths = ['/api/ping', '/api/products', `/api/products/${productId}`, '/api/workspaces', `/api/workspaces/${workspaceId}`, '/api/products?limit=1', '/api/products/999999', '/api/products?limit=0'];
  for (const path of paths) {
    const get = await fetch(`${server.url}${path}`);
    const getBody = await get.arrayBuffer();
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
    assert.equal(head.status, get.status, path);
    assert.equal((await head.arrayBuffer()).byteLength, 0, path);
    // Per-response and hop-by-hop headers (undici asks to close after a HEAD) aside.
    const differing = ['date', 'x-request-id', 'connection', 'keep-alive'];
    const headersOf = (response: Response) => [...response.headers].filter(([name]) => !differing.includes(name));
    assert.deepEqual(headersOf(head), headersOf(get), path);
    assert.equal(head.headers.get('content-length'), String(getBody.byteLength), path);
  }
});

test('HEAD on /api/openapi.json matches its GET when that route exists', async () => {
  const get = await fetch(`${server.url}/api/openapi.json`);
  await get.arrayBuffer();
  const head = await fetch(`${server.url}/api/openapi.json`, { method: 'HEAD' });
  assert.equal(head.status, get.status);
  assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
});

test('every route the app serves answers HEAD when it answers GET', async () => {
  for (const { method, pattern } of server.app.routes) {
    if (method !== 'GET') continue;
    const path = pattern.replace('{id}', '1');
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
    assert.notEqual(head.status, 405, path);
  }
});
