import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { createAt } from '../support/resource-requests.ts';
import { ALL_RESOURCES } from '../support/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Routing (docs/api.md): 404 for unknown paths, 405 with Allow for a known path's other methods, HEAD
// wherever GET is; every resource served (the test resource included) and every route of the app.
let server: TestServer;
// An existing item of each resource, by its path (`/api/gadgets` → `/api/gadgets/3`).
const items = new Map<string, string>();
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
  for (const resource of ALL_RESOURCES) items.set(resource.path, (await createAt(server.url, resource)).path);
});
after(() => server.stop());

const itemOf = (path: string): string => items.get(path) as string;

test('an unknown path is 404 not_found, whatever the method', async () => {
  const perResource = ALL_RESOURCES.flatMap(({ path, plural }) => [`${path}/1/extra`, `/API/${plural}`, `/api/${plural.toUpperCase()}`, `${path}/`]);
  for (const path of ['/', '/api', '/api/nothing', ...perResource, '/api/ping/', '/favicon.ico']) {
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
  const LIST = ['GET', 'HEAD', 'POST'];
  const ITEM = ['DELETE', 'GET', 'HEAD', 'PATCH'];
  const cases: [string, string, string[]][] = [
    ['POST', '/api/ping', ['GET', 'HEAD']],
    ...ALL_RESOURCES.flatMap(({ path }): [string, string, string[]][] => [
      ['DELETE', path, LIST],
      ['PUT', path, LIST],
      ['PATCH', path, LIST],
      ['OPTIONS', path, LIST],
      ['PUT', itemOf(path), ITEM],
      ['POST', itemOf(path), ITEM],
      // The path shape is known even when the id is not.
      ['POST', `${path}/abc`, ITEM],
    ]),
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
  const paths = ['/api/ping', ...ALL_RESOURCES.flatMap(({ path }) => [path, itemOf(path), `${path}?limit=1`, `${path}/999999`, `${path}?limit=0`])];
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
  for (const pattern of ['/api/ping', '/api/openapi.json', ...ALL_RESOURCES.flatMap(({ path }) => [path, `${path}/{id}`])]) {
    assert.ok(getRoutes.includes(pattern), `GET ${pattern} is not served`);
  }
  for (const pattern of getRoutes) {
    // An item of the resource the pattern is under (any id elsewhere: an unknown webhook is 404 alike).
    const item = items.get(pattern.replace('/{id}', '')) ?? pattern.replace('{id}', '1');
    await assertHeadMatchesGet(pattern.includes('{id}') ? item : pattern);
  }
});
