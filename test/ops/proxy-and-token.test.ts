import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearerTokenCheck } from '../../src/http/auth.ts';
import { HttpError } from '../../src/http/errors.ts';
import { allowedChange } from '../support/change-samples.ts';
import { ALL_RESOURCES, RESOURCES, validBody } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// One resource as the sample of a request; the token's writes and open reads on every resource served.
const SAMPLE = RESOURCES[0] ?? assert.fail('a resource');

/** The remoteAddress logged for the request that sent `requestId`. */
async function loggedAddress(server: TestServer, headers: Record<string, string>): Promise<string | undefined> {
  const requestId = `proxy-test-${Math.random().toString(36).slice(2)}`;
  const response = await fetch(`${server.url}${SAMPLE.path}`, { headers: { ...headers, 'x-request-id': requestId } });
  await response.arrayBuffer();
  await new Promise((resolve) => setImmediate(resolve)); // log lines leave in the next turn
  const line = server.logs.find((l) => l['reqId'] === requestId);
  return (line?.['req'] as { remoteAddress?: string } | undefined)?.remoteAddress;
}

describe('X-Forwarded-For from a trusted proxy chain (127.0.0.1 and 10.0.0.0/8)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' });
  });
  after(() => server.stop());

  test('the right-most untrusted hop is logged as the client', async () => {
    assert.equal(await loggedAddress(server, { 'x-forwarded-for': '203.0.113.7' }), '203.0.113.7');
    assert.equal(await loggedAddress(server, { 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.1.2.3' }), '203.0.113.7');
  });

  test('a malformed hop stops the walk at the trusted hop that reported it', async () => {
    assert.equal(await loggedAddress(server, { 'x-forwarded-for': '203.0.113.7, bogus, 10.1.2.3' }), '10.1.2.3');
  });

  test('without the header the peer itself is the client', async () => {
    assert.equal(await loggedAddress(server, {}), '127.0.0.1');
  });
});

describe('X-Forwarded-For when the peer is not a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_TRUST_PROXY: '10.0.0.1' });
  });
  after(() => server.stop());

  test('the header is ignored', async () => {
    assert.equal(await loggedAddress(server, { 'x-forwarded-for': '203.0.113.7' }), '127.0.0.1');
  });
});

describe('X-Forwarded-For with SVC_TRUST_PROXY empty', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('the header is ignored', async () => {
    assert.equal(await loggedAddress(server, { 'x-forwarded-for': '203.0.113.7' }), '127.0.0.1');
  });
});

describe('SVC_API_TOKEN', () => {
  const token = 'correct-horse-battery-staple-42';
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_API_TOKEN: token }, { resources: ALL_RESOURCES });
  });
  after(() => server.stop());

  const post = (headers: Record<string, string>): Promise<Response> => postJson(`${server.url}${SAMPLE.path}`, validBody(SAMPLE), headers);

  test('a POST with the token is accepted', async () => {
    const response = await post({ authorization: `Bearer ${token}` });
    assert.equal(response.status, 201);
    await response.arrayBuffer();
    const lowerCaseScheme = await post({ authorization: `bearer ${token}` });
    assert.equal(lowerCaseScheme.status, 201);
    await lowerCaseScheme.arrayBuffer();
  });

  test('a POST without a token is 401 unauthorized with WWW-Authenticate: Bearer', async () => {
    const response = await post({});
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    const problem = (await response.json()) as { code: string };
    assert.equal(problem.code, 'unauthorized');
  });

  test('a wrong token, a prefix of it, or another scheme is refused the same way', async () => {
    for (const authorization of [`Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, 'Bearer short', `Basic ${token}`, 'Bearer']) {
      const response = await post({ authorization });
      assert.equal(response.status, 401, authorization);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      await response.arrayBuffer();
    }
  });

  test('every resource\'s POST, PATCH and DELETE need the token: without it 401 and nothing changes; with it they apply', async () => {
    for (const resource of ALL_RESOURCES) {
      const { body, patch: change } = allowedChange(resource);
      const collection = `${server.url}${resource.path}`;
      const created = await postJson(collection, body, { authorization: `Bearer ${token}` });
      assert.equal(created.status, 201, resource.plural);
      const stored = await created.json();
      const url = `${server.url}${created.headers.get('location') ?? ''}`;
      const patch = (headers: Record<string, string>): Promise<Response> => patchJson(url, change, headers);
      const count = async (): Promise<number> => ((await (await fetch(`${collection}?limit=200`)).json()) as unknown[]).length;
      const rows = await count();
      for (const headers of [{}, { authorization: 'Bearer wrong-token-of-some-length' }]) {
        for (const response of [await postJson(collection, body, headers), await patch(headers), await fetch(url, { method: 'DELETE', headers })]) {
          assert.equal(response.status, 401, resource.plural);
          assert.equal(response.headers.get('www-authenticate'), 'Bearer');
          assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
        }
      }
      assert.deepEqual(await (await fetch(url)).json(), stored);
      assert.equal(await count(), rows, `${resource.plural}: no create without the token`);
      const allowed = await patch({ authorization: `Bearer ${token}` });
      assert.equal(allowed.status, 200);
      await allowed.arrayBuffer();
      assert.equal((await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status, 204);
    }
  });

  test('reads stay open without a token', async () => {
    const created = await post({ authorization: `Bearer ${token}` });
    const item = created.headers.get('location') ?? '';
    for (const path of [...ALL_RESOURCES.map((resource) => resource.path), item, '/api/ping']) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
    }
  });

  test('the token never reaches the log', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(server.logs.length > 0);
    assert.ok(!JSON.stringify(server.logs).includes(token));
  });
});

test('the token check compares fixed-length digests, so any length of guess takes the same path', () => {
  const check = bearerTokenCheck('0123456789abcdef0123');
  check('Bearer 0123456789abcdef0123');
  // A raw timingSafeEqual would throw RangeError on unequal lengths (and leak the length by it).
  for (const guess of ['x', '0123456789abcdef012', '0123456789abcdef01234', 'y'.repeat(5_000)]) {
    assert.throws(() => check(`Bearer ${guess}`), (error: unknown) => error instanceof HttpError && error.code === 'unauthorized');
  }
  assert.throws(() => check(undefined), (error: unknown) => error instanceof HttpError && error.status === 401);
});
