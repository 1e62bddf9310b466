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

// Per-response and hop-by-hop headers (undici asks to close after a HEAD) aside.
const DIFFERING = ['date', 'x-request-id', 'connection', 'keep-alive'];
const headersOf = (response: Response): [string, string][] => [...response.headers].filter(([name]) => !DIFFERING.includes(name));

/** GETs and HEADs `path`: the same status and headers, no body, and the GET's length; resolves with the GET's status and body. */
async function assertHeadMatchesGet(path: string): Promise<{ status: number; body: string }> {
  const get = await fetch(`${server.url}${path}`);
  const body = Buffer.from(await get.arrayBuffer());
  const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
  assert.equal(head.status, get.status, path);
  assert.equal((await head.arrayBuffer()).byteLength, 0, path);
  assert.deepEqual(headersOf(head), headersOf(get), path);
  assert.equal(head.headers.get('content-length'), String(body.byteLength), path);
  return { status: get.status, body: body.toString('utf8') };
}

test('HEAD on every GET route has the GET status and headers and no body', async () => {
  const paths = ['/api/ping', '/api/products', `/api/products/${productId}`, '/api/workspaces', `/api/workspaces/${workspaceId}`, '/api/products?limit=1', '/api/products/999999', '/api/products?limit=0'];
  for (const path of paths) await assertHeadMatchesGet(path);
});

test('GET and HEAD /api/openapi.json: 200, the OpenAPI 3.1 document, and a HEAD that matches it', async () => {
  const { status, body } = await assertHeadMatchesGet('/api/openapi.json');
  assert.equal(status, 200);
  assert.match((JSON.parse(body) as { openapi: string }).openapi, /^3\.1\./);
});

test('every route the app serves answers HEAD as it answers GET', async () => {
  const getRoutes = server.app.routes.filter((route) => route.method === 'GET').map((route) => route.pattern);
  // The routes docs/api.md lists are among them, so this loop cannot pass by running over nothing.
  for (const pattern of ['/api/ping', '/api/openapi.json', '/api/products', '/api/products/{id}', '/api/workspaces', '/api/workspaces/{id}']) {
    assert.ok(getRoutes.includes(pattern), `GET ${pattern} is not served`);
  }
  for (const pattern of getRoutes) {
    const path = pattern.replace('{id}', String(pattern.startsWith('/api/workspaces/') ? workspaceId : productId));
    await assertHeadMatchesGet(path);
  }
});
