import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { eventually } from '../support/assertions.ts';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { bearer, makeKey } from '../support/keys.ts';
import { allowedChange } from '../support/change-samples.ts';
import { ALL_RESOURCES, RESOURCES } from '../support/resources.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { startTestServer } from '../support/server.ts';

// The responses that depend on the server's state rather than the request: 429 over the rate,
// 503 readiness and shutting down, 500 when the database fails. Each is checked against the document,
// for every operation of every resource the app serves (the service's and the throwaway one).

const OPERATIONS_OF_KEYS = [['GET', '/api/keys'], ['POST', '/api/keys'], ['GET', '/api/keys/{id}'], ['DELETE', '/api/keys/{id}']] as const;

async function checkerFor(url: string): Promise<ConformanceChecker> {
  return new ConformanceChecker(await (await fetch(`${url}/api/openapi.json`)).json());
}

test('429 rate_limited and the RateLimit fields conform; readiness is exempt', async () => {
  const server = await startTestServer({ SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '3600' });
  // One resource as the sample: the rate counts every request alike.
  const [sample] = RESOURCES;
  assert.ok(sample !== undefined);
  const { path } = sample;
  try {
    const checker = await checkerFor(server.url); // the first counted request
    const first = await checker.check('GET', path, await fetch(`${server.url}${path}`));
    assert.equal(first.status, 200);
    assert.match(first.headers.get('ratelimit') ?? '', /;r=1;/);
    await checker.check('POST', path, await fetch(`${server.url}${path}`, { method: 'POST' }));
    const limited = await checker.check('GET', `${path}/{id}`, await fetch(`${server.url}${path}/1`));
    assert.equal(limited.status, 429);
    assert.equal((limited.body as { code: string }).code, 'rate_limited');
    assert.ok(limited.headers.get('retry-after') !== null && limited.headers.get('ratelimit') !== null);
    const ping = await checker.check('GET', '/api/ping', await fetch(`${server.url}/api/ping`));
    assert.equal(ping.status, 200);
    assert.equal(ping.headers.get('ratelimit'), null);
  } finally {
    await server.stop();
  }
});

test('a live stream refused for the process\'s limit (503) or its caller\'s (429) conforms, with no rate limit configured', async () => {
  const server = await startTestServer({ SVC_STREAMS_PER_CALLER: '1', SVC_MAX_STREAMS: '1' });
  const accept = { headers: { accept: 'text/event-stream' } };
  const open: OpenStream[] = [];
  try {
    const checker = await checkerFor(server.url);
    const elsewhere = await openStream(`${server.url}/api/events`, {}, { localAddress: '127.0.0.2' });
    open.push(elsewhere);
    assert.equal(elsewhere.status, 200);
    const full = await checker.check('GET', '/api/events', await fetch(`${server.url}/api/events`, accept));
    assert.deepEqual([full.status, (full.body as { code: string }).code, full.headers.get('retry-after')], [503, 'unavailable', '5']);
    elsewhere.close();
    await eventually('the place is free again', async () => {
      const own = await openStream(`${server.url}/api/events`);
      open.push(own);
      return own.status === 200;
    }, 10_000, 50);
    const again = await checker.check('GET', '/api/events', await fetch(`${server.url}/api/events`, accept));
    assert.deepEqual([again.status, (again.body as { code: string }).code, again.headers.get('retry-after')], [429, 'rate_limited', '5']);
  } finally {
    for (const stream of open) stream.close();
    await server.stop();
  }
});

async function withAppServer(run: (server: AppServer, checker: ConformanceChecker) => Promise<void>): Promise<void> {
  const server = await startAppServer({}, { resources: ALL_RESOURCES });
  try {
    await run(server, await checkerFor(server.url));
  } finally {
    await server.stop();
  }
}

test('503 readiness bodies conform when the schema or the database is not ready', () =>
  withAppServer(async (server, checker) => {
    await server.database.setSchemaVersion(0);
    const stale = await checker.check('GET', '/api/ping', await fetch(`${server.url}/api/ping`));
    assert.deepEqual([stale.status, stale.body], [503, { status: 2, checks: { database: 1, schema: 2 } }]);
    await server.breakDatabase();
    const closed = await checker.check('GET', '/api/ping', await fetch(`${server.url}/api/ping`));
    assert.deepEqual([closed.status, closed.body], [503, { status: 2, checks: { database: 2, schema: 2 } }]);
  }));

// Every operation of `resource`, each with a request the service would carry out: the item is 1.
function operationsOf(resource: Resource): [string, string, RequestInit][] {
  const { body, patch } = allowedChange(resource);
  const json = (method: string, type: string, value: unknown): RequestInit => ({ method, headers: { 'content-type': type }, body: JSON.stringify(value) });
  const item = `${resource.path}/{id}`;
  return [
    ['GET', resource.path, {}],
    ['GET', item, {}],
    ['POST', resource.path, json('POST', 'application/json', body)],
    ['PATCH', item, json('PATCH', 'application/merge-patch+json', patch)],
    ['DELETE', item, { method: 'DELETE' }],
    ['DELETE', item, { method: 'DELETE', headers: { 'if-match': '"1"' } }],
  ];
}

test('500 internal_error conforms for every operation that touches a broken database', () =>
  withAppServer(async (server, checker) => {
    // The app's statements now fail when run, as a corrupt or tampered database would make them.
    for (const resource of ALL_RESOURCES) await server.database.sql(`DROP TABLE ${resource.plural}`);
    for (const [method, pattern, init] of ALL_RESOURCES.flatMap(operationsOf)) {
      const res = await checker.check(method, pattern, await fetch(`${server.url}${pattern.replace('{id}', '1')}`, init));
      assert.equal(res.status, 500, `${method} ${pattern}`);
      assert.equal((res.body as { detail: string }).detail, 'An unexpected error occurred.');
    }
  }));

test('503 unavailable conforms on every operation while shutting down', () =>
  withAppServer(async (server, checker) => {
    server.app.drain();
    const calls: [string, string, RequestInit][] = [
      ...['/api/ping', '/api/openapi.json', '/api/docs'].map((pattern): [string, string, RequestInit] => ['GET', pattern, {}]),
      ...ALL_RESOURCES.flatMap(operationsOf),
    ];
    for (const [method, pattern, init] of calls) {
      const res = await checker.check(method, pattern, await fetch(`${server.url}${pattern.replace('{id}', '1')}`, init));
      assert.deepEqual([res.status, (res.body as { code: string }).code], [503, 'unavailable'], `${method} ${pattern}`);
    }
  }));

test('with API keys: 429, 500 and 503 conform on the keys endpoints too', async () => {
  const server = await startAppServer({ SVC_AUTH: 'keys', SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '3600' });
  try {
    const [admin, other] = [await makeKey(server.database, { name: 'admin', scopes: ['admin'] }), await makeKey(server.database, { name: 'other', scopes: ['admin'] })];
    const checker = await checkerFor(server.url);
    const send = async (method: string, pattern: string, key: string | null): Promise<{ status: number; code: unknown }> => {
      const url = `${server.url}${pattern.replace('{id}', 'AAAAAAAAAAAA')}`;
      const res = await checker.check(method, pattern, await fetch(url, { method, headers: key === null ? {} : bearer(key) }));
      return { status: res.status, code: (res.body as { code?: string } | undefined)?.code };
    };
    assert.equal((await send('GET', '/api/keys', admin.key)).status, 200);
    assert.equal((await send('GET', '/api/keys/{id}', admin.key)).status, 404);
    assert.equal((await send('DELETE', '/api/keys/{id}', admin.key)).status, 404);
    assert.deepEqual(await send('POST', '/api/keys', admin.key), { status: 429, code: 'rate_limited' });
    // The app's key statements now fail when run: a key not read before fails its own read, a 500.
    await server.database.sql('DROP TABLE api_keys');
    for (const [method, pattern] of OPERATIONS_OF_KEYS) assert.deepEqual(await send(method, pattern, other.key), { status: 500, code: 'internal_error' }, `${method} ${pattern}`);
    server.app.drain();
    for (const [method, pattern] of OPERATIONS_OF_KEYS) assert.deepEqual(await send(method, pattern, null), { status: 503, code: 'unavailable' }, `${method} ${pattern}`);
  } finally {
    await server.stop();
  }
});
