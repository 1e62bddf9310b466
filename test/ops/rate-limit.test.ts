import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

const POLICY = '"default";q=3;w=60';

describe('rate limit of 3 per 60 s, behind a trusted proxy on 127.0.0.1', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '60', SVC_TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.stop());

  const from = (client: string): Record<string, string> => ({ 'x-forwarded-for': client });

  test('exactly 3 requests are allowed, each with the policy and the remaining quota', async () => {
    for (const remaining of [2, 1, 0]) {
      const response = await fetch(`${server.url}/api/products`, { headers: from('198.51.100.1') });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit-policy'), POLICY);
      assert.match(response.headers.get('ratelimit') ?? '', new RegExp(`^"default";r=${remaining};t=(60|59)$`));
      await response.arrayBuffer();
    }
  });

  test('the 4th is refused with 429 rate_limited, Retry-After and the RateLimit fields', async () => {
    const response = await fetch(`${server.url}/api/products`, { headers: from('198.51.100.1') });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as { code: string; status: number; title: string };
    assert.equal(problem.code, 'rate_limited');
    assert.equal(problem.title, 'Too Many Requests');
    const retryAfter = Number(response.headers.get('retry-after'));
    // All 3 were spent at the start of the window: the first retry fits a third into the next one.
    assert.ok(retryAfter >= 75 && retryAfter <= 80, `retry-after ${retryAfter}`);
    assert.equal(response.headers.get('ratelimit-policy'), POLICY);
    assert.equal(response.headers.get('ratelimit'), `"default";r=0;t=${retryAfter}`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  test('writes count too, and are refused before the body is looked at', async () => {
    const response = await postJson(`${server.url}/api/products`, { name: 'x', priceInCents: 1 }, from('198.51.100.1'));
    assert.equal(response.status, 429);
    await response.arrayBuffer();
  });

  test('GET /api/ping is exempt and carries no RateLimit fields', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.url}/api/ping`, { headers: from('198.51.100.1') });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit'), null);
      await response.arrayBuffer();
    }
  });

  test('each client (as named by the trusted proxy) has its own quota', async () => {
    const other = await fetch(`${server.url}/api/products`, { headers: from('198.51.100.2') });
    assert.equal(other.status, 200);
    assert.match(other.headers.get('ratelimit') ?? '', /^"default";r=2;/);
    // The proxy's own address is a third client.
    const direct = await fetch(`${server.url}/api/products`);
    assert.match(direct.headers.get('ratelimit') ?? '', /^"default";r=2;/);
  });

  test('the refusal is in the access log with the client address', () => {
    const refused = server.logs.find((line) => (line['res'] as { statusCode?: number } | undefined)?.statusCode === 429);
    assert.equal((refused?.['req'] as { remoteAddress?: string } | undefined)?.remoteAddress, '198.51.100.1');
  });
});

describe('rate limiting without a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '2' });
  });
  after(() => server.stop());

  test('X-Forwarded-For cannot buy a fresh quota', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/api/products`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});

describe('rate limiting is off by default', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('many requests pass and no RateLimit fields are sent', async () => {
    for (let i = 0; i < 30; i++) {
      const response = await fetch(`${server.url}/api/products`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit'), null);
      await response.arrayBuffer();
    }
  });
});
