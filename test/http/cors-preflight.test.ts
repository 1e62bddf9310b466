import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { type CredentialCheck, type Identified, refused } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { createAt } from '../support/resource-requests.ts';
import { ALL_RESOURCES, RESOURCES } from '../support/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';

// Preflights answered from the route table (docs/security.md, CORS): every route of every resource
// served (the test resource included) by its own methods; what needs no resource uses one as its sample.
const SAMPLE = (RESOURCES[0] as Resource).path;
const LIST = ['GET', 'HEAD', 'POST'];
const ITEM = ['GET', 'HEAD', 'PATCH', 'DELETE'];

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id', 'Last-Event-ID', 'Api-Version'];

/** Sends a CORS preflight as a browser does: OPTIONS with Origin, the method asked for and, maybe, headers. */
function preflight(url: string, origin: string, method: string, requestHeaders?: string): Promise<Response> {
  const headers: Record<string, string> = { origin, 'access-control-request-method': method };
  if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
  return fetch(url, { method: 'OPTIONS', headers });
}

const list = (value: string | null): string[] => (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');

/** Asserts a preflight the browser accepts: 204, no body, that origin, the path's methods, the headers, a max age. */
async function assertAccepted(response: Response, origin: string, methods: readonly string[], label: string): Promise<void> {
  assert.equal(response.status, 204, label);
  assert.equal((await response.arrayBuffer()).byteLength, 0, label);
  assert.equal(response.headers.get('access-control-allow-origin'), origin, label);
  assert.deepEqual(list(response.headers.get('access-control-allow-methods')).sort(), [...methods].sort(), label);
  const allowed = list(response.headers.get('access-control-allow-headers')).map((name) => name.toLowerCase());
  for (const name of ALLOWED_HEADERS) assert.ok(allowed.includes(name.toLowerCase()), `${label}: ${name} allowed`);
  assert.equal(response.headers.get('access-control-max-age'), '7200', label);
  assert.equal(response.headers.get('access-control-allow-credentials'), null, label);
  assert.equal(response.headers.get('vary'), 'Origin, Api-Version', label);
  // The security headers are on preflights too.
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', label);
}

/** Asserts a refused preflight: 204 with no CORS header at all, so the browser stops; Vary: Origin only. */
async function assertRefused(response: Response, label: string): Promise<void> {
  assert.equal(response.status, 204, label);
  await response.arrayBuffer();
  const cors = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
  assert.deepEqual(cors, [], label);
  assert.equal(response.headers.get('vary'), 'Origin, Api-Version', label);
}

describe('preflights with SVC_CORS_ORIGINS set', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_CORS_ORIGINS: APP, SVC_API_TOKEN: 'a-token-long-enough-1234' }, { resources: ALL_RESOURCES });
  });
  after(() => server.stop());

  test('an allowed origin asking for a method the path serves gets 204 with the path\'s own methods, without credentials', async () => {
    const url = server.url;
    const token = { authorization: 'Bearer a-token-long-enough-1234' };
    for (const resource of ALL_RESOURCES) {
      const { path } = resource;
      const item = (await createAt(url, resource, 0, token)).path;
      await assertAccepted(await preflight(`${url}${path}`, APP, 'POST', 'authorization,content-type,idempotency-key'), APP, LIST, `POST ${path}`);
      await assertAccepted(await preflight(`${url}${item}`, APP, 'PATCH', 'if-match'), APP, ITEM, `PATCH ${item}`);
      await assertAccepted(await preflight(`${url}${item}`, APP, 'DELETE'), APP, ITEM, `DELETE ${item}`);
      // The item's shape, not its existence: an id that names nothing tells nothing.
      await assertAccepted(await preflight(`${url}${path}/999999`, APP, 'GET'), APP, ITEM, `unknown id of ${path}`);
    }
    await assertAccepted(await preflight(`${url}/api/ping`, APP, 'GET', 'x-request-id'), APP, ['GET', 'HEAD'], 'ping');
    // A page that resumes the event feed (a live stream) sends Last-Event-ID (docs/events.md).
    await assertAccepted(await preflight(`${url}/api/events`, APP, 'GET', 'authorization,last-event-id'), APP, ['GET', 'HEAD'], 'events');
  });

  test('every route the app serves is covered by itself, from the router', async () => {
    for (const { method, pattern } of server.app.routes) {
      const response = await preflight(`${server.url}${pattern.replace('{id}', '1')}`, APP, method);
      assert.equal(response.status, 204, `${method} ${pattern}`);
      assert.ok(list(response.headers.get('access-control-allow-methods')).includes(method), `${method} ${pattern}`);
      await response.arrayBuffer();
    }
  });

  test('refused: another origin, a method the path does not serve, an unknown path, a method in the wrong case', async () => {
    for (const { path } of ALL_RESOURCES) {
      await assertRefused(await preflight(`${server.url}${path}`, OTHER, 'POST'), `other origin, ${path}`);
      await assertRefused(await preflight(`${server.url}${path}`, APP, 'PUT'), `PUT on ${path}`);
      await assertRefused(await preflight(`${server.url}${path}`, APP, 'DELETE'), `DELETE on ${path}`);
      await assertRefused(await preflight(`${server.url}${path}/1`, APP, 'POST'), `POST on an item of ${path}`);
      // Methods are case-sensitive; browsers upper-case only DELETE, GET, HEAD, OPTIONS, POST and PUT.
      await assertRefused(await preflight(`${server.url}${path}/1`, APP, 'patch'), `lower-case patch on ${path}`);
    }
    await assertRefused(await preflight(`${server.url}/api/ping`, APP, 'OPTIONS'), 'OPTIONS asked for');
    await assertRefused(await preflight(`${server.url}/api/nowhere`, APP, 'GET'), 'unknown path');
  });

  test('an OPTIONS that is not a preflight is answered as any request: 405 with Allow', async () => {
    const plain = await fetch(`${server.url}${SAMPLE}`, { method: 'OPTIONS' });
    assert.equal(plain.status, 405);
    assert.equal(plain.headers.get('allow'), 'GET, POST, HEAD');
    assert.equal(plain.headers.get('access-control-allow-methods'), null);
    // With an allowed Origin but no method asked for, it is a cross-origin OPTIONS request: an error with the CORS headers.
    const withOrigin = await fetch(`${server.url}${SAMPLE}`, { method: 'OPTIONS', headers: { origin: APP } });
    assert.equal(withOrigin.status, 405);
    assert.equal(withOrigin.headers.get('access-control-allow-origin'), APP);
    assert.equal(withOrigin.headers.get('access-control-allow-methods'), null);
  });
});

describe('SVC_CORS_ORIGINS=*: a preflight from any origin', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_CORS_ORIGINS: '*' });
  });
  after(() => server.stop());

  test('is answered with * and the path\'s methods; a method not served is still refused', async () => {
    await assertAccepted(await preflight(`${server.url}${SAMPLE}`, OTHER, 'POST'), '*', LIST, 'any origin');
    await assertRefused(await preflight(`${server.url}${SAMPLE}`, OTHER, 'PATCH'), 'PATCH on a list');
  });
});

// An embedding program's own credential check: `reader-…` may read; anything else is refused.
const readers: CredentialCheck = {
  identify(credential): Identified {
    const [role, name] = credential.split('-');
    return role === 'reader' && name !== undefined ? { ok: true, caller: { kind: 'key', id: name, scopes: [Scope.read] } } : refused('unknown');
  },
};

describe('CORS with SVC_AUTH on: a stranger learns nothing beyond the open endpoints', () => {
  let url = '';
  let stop: () => Promise<void> = async () => {};
  before(async () => {
    const database = await createTestDatabase();
    const db = database.open();
    const config = loadConfig({ ...database.env, SVC_AUTH: 'keys', SVC_CORS_ORIGINS: APP });
    const server: Server = createServer(createApp({ db, config, credentials: readers, logger: createLogger('silent') }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeDatabase(db);
      await database.drop();
    };
  });
  after(() => stop());

  test('a preflight needs no credentials: it comes before the caller check', async () => {
    await assertAccepted(await preflight(`${url}${SAMPLE}`, APP, 'GET', 'authorization'), APP, LIST, 'list');
  });

  test('a refused preflight looks the same for a path that exists and one that does not', async () => {
    const shape = async (response: Response): Promise<string> => {
      await assertRefused(response, 'refused');
      return JSON.stringify([response.status, [...response.headers].filter(([name]) => !['date', 'x-request-id'].includes(name))]);
    };
    const known = await shape(await preflight(`${url}${SAMPLE}`, APP, 'PUT'));
    assert.equal(await shape(await preflight(`${url}/api/nowhere`, APP, 'PUT')), known);
    assert.equal(await shape(await preflight(`${url}${SAMPLE}`, OTHER, 'GET')), known);
  });

  test('a stranger\'s request is 401 whatever the path, with the CORS headers so the page can read WWW-Authenticate', async () => {
    for (const [method, path] of [['GET', SAMPLE], ['GET', '/api/nowhere'], ['PUT', SAMPLE], ['OPTIONS', SAMPLE]] as const) {
      const response = await fetch(`${url}${path}`, { method, headers: { origin: APP } });
      assert.equal(response.status, 401, `${method} ${path}`);
      assert.equal(response.headers.get('access-control-allow-origin'), APP, `${method} ${path}`);
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      await response.arrayBuffer();
    }
    const known = await fetch(`${url}${SAMPLE}`, { headers: { origin: APP, authorization: 'Bearer reader-r1' } });
    assert.equal(known.status, 200);
    assert.equal(known.headers.get('access-control-allow-origin'), APP);
  });
});
