import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RawResponse, rawRequest } from '../support/raw-http.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

const POLICY = '"default";q=3;w=60';

// The server counts the time between two requests; the test only knows it is at most the time from
// sending the first to receiving the last. So `t` after requests that began `elapsedMs` ago with
// `fullSeconds` to go is between ceil(fullSeconds − elapsed) and fullSeconds, whatever the speed.
function assertSecondsLeft(actual: number, fullSeconds: number, sinceMs: number): void {
  const elapsedS = (performance.now() - sinceMs) / 1000;
  assert.ok(actual <= fullSeconds && actual >= Math.max(1, Math.ceil(fullSeconds - elapsedS)), `${actual} s, expected ${fullSeconds} s less ${elapsedS} s`);
}

function rateLimitT(response: Response, remaining: number): number {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  assert.equal(Number(match?.[1]), remaining, `ratelimit ${response.headers.get('ratelimit')}`);
  return Number(match?.[2]);
}

describe('rate limit of 3 per 60 s, behind a trusted proxy on 127.0.0.1', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '3', SVC_RATE_LIMIT_WINDOW_S: '60', SVC_TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.stop());

  const from = (client: string): Record<string, string> => ({ 'x-forwarded-for': client });

  let firstSent = 0;

  test('a burst of 3 is allowed, each with the policy, the requests left now, and 20 s until one more', async () => {
    firstSent = performance.now();
    for (const remaining of [2, 1, 0]) {
      const response = await fetch(`${server.url}/api/products`, { headers: from('198.51.100.1') });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit-policy'), POLICY);
      // One request frees up every 60/3 = 20 s, counted from the first of the burst.
      assertSecondsLeft(rateLimitT(response, remaining), 20, firstSent);
      await response.arrayBuffer();
    }
  });

  test('the 4th is refused with 429 rate_limited, Retry-After (at most one emission interval) and the RateLimit fields', async () => {
    const response = await fetch(`${server.url}/api/products`, { headers: from('198.51.100.1') });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as { code: string; status: number; title: string };
    assert.equal(problem.code, 'rate_limited');
    assert.equal(problem.title, 'Too Many Requests');
    const retryAfter = Number(response.headers.get('retry-after'));
    assertSecondsLeft(retryAfter, 20, firstSent);
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

  test('IPv6 clients share one quota per /64', async () => {
    const statusFrom = async (client: string): Promise<number> => {
      const response = await fetch(`${server.url}/api/products`, { headers: from(client) });
      await response.arrayBuffer();
      return response.status;
    };
    for (const host of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff']) assert.equal(await statusFrom(host), 200);
    assert.equal(await statusFrom('2001:db8:1:2:aaaa::9'), 429);
    assert.equal(await statusFrom('2001:db8:1:3::1'), 200);
  });

  test('the refusal is in the access log with the client address', () => {
    const refused = server.logs.find((line) => (line['res'] as { statusCode?: number } | undefined)?.statusCode === 429);
    assert.equal((refused?.['req'] as { remoteAddress?: string } | undefined)?.remoteAddress, '198.51.100.1');
  });
});

describe('rate limit of 5 per the default 60 s: a burst, then one request per 12 s', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '5' });
  });
  after(() => server.stop());

  test('after five at once the sixth waits at most 12 s (it was 72 with the sliding-window counter)', async () => {
    const firstSent = performance.now();
    for (const remaining of [4, 3, 2, 1, 0]) {
      const response = await fetch(`${server.url}/api/products`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit-policy'), '"default";q=5;w=60');
      assertSecondsLeft(rateLimitT(response, remaining), 12, firstSent);
      await response.arrayBuffer();
    }
    const refused = await fetch(`${server.url}/api/products`);
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assertSecondsLeft(retryAfter, 12, firstSent);
    assert.equal(rateLimitT(refused, 0), retryAfter);
    await refused.arrayBuffer();
  });
});

describe('rate limit of 1 per 1 s: waiting Retry-After, or one silent window, is enough', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '1', SVC_RATE_LIMIT_WINDOW_S: '1', SVC_TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.stop());

  const get = (client: string): Promise<Response> => fetch(`${server.url}/api/products`, { headers: { 'x-forwarded-for': client } });
  // Timers may fire a few milliseconds before the server's clock has moved as far.
  const TIMER_SLACK_MS = 25;

  test('a client refused once is allowed again after waiting Retry-After', async () => {
    assert.equal((await get('198.51.100.7')).status, 200);
    const refused = await get('198.51.100.7');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('ratelimit'), '"default";r=0;t=1');
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + TIMER_SLACK_MS);
    const retried = await get('198.51.100.7');
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('ratelimit'), '"default";r=0;t=1');
  });

  test('a client silent for one whole window may send again', async () => {
    assert.equal((await get('198.51.100.8')).status, 200);
    await sleep(1000 + TIMER_SLACK_MS);
    assert.equal((await get('198.51.100.8')).status, 200);
    assert.equal((await get('198.51.100.8')).status, 429);
  });
});

describe('the server tracks many clients at once (README: at most 100,000; the least recently seen is forgotten beyond)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '1', SVC_RATE_LIMIT_WINDOW_S: '60', SVC_TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.stop());

  const statusFrom = async (client: string): Promise<number> => {
    const response = await fetch(`${server.url}/api/products`, { headers: { 'x-forwarded-for': client } });
    await response.arrayBuffer();
    return response.status;
  };

  test('a refused client is still refused after 1,000 other clients were seen', async () => {
    assert.deepEqual([await statusFrom('198.51.100.50'), await statusFrom('198.51.100.50')], [200, 429]);
    for (let n = 0; n < 1000; n++) assert.equal(await statusFrom(`10.0.${n >> 8}.${n & 255}`), 200);
    assert.equal(await statusFrom('198.51.100.50'), 429, 'the first client was forgotten: it bought a fresh quota');
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

describe('targets that are not paths count against the limit too: OPTIONS *, refused targets, absolute form', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_RATE_LIMIT: '2', SVC_RATE_LIMIT_WINDOW_S: '60', SVC_TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.stop());

  // One request on its own connection, its target on the request line as it is.
  const raw = (method: string, target: string, client: string): Promise<RawResponse> =>
    rawRequest(server.url, [`${method} ${target} HTTP/1.1`, `Host: ${new URL(server.url).host}`, 'Connection: close', `X-Forwarded-For: ${client}`].join('\r\n'));

  test('OPTIONS * is counted, refused with 429 once over, and shares its quota with the paths', async () => {
    const answers = [await raw('OPTIONS', '*', '198.51.100.30'), await raw('OPTIONS', '*', '198.51.100.30')];
    assert.deepEqual(answers.map((answer) => answer.status), [204, 204]);
    assert.deepEqual(answers.map((answer) => /^"default";r=(\d+);/.exec(answer.headers['ratelimit'] ?? '')?.[1]), ['1', '0']);
    const over = await raw('OPTIONS', '*', '198.51.100.30');
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers['retry-after']) >= 1, `Retry-After ${over.headers['retry-after']}`);
    assert.equal((await raw('GET', '/api/products', '198.51.100.30')).status, 429);
  });

  test('a refused target (another scheme, user information) is counted: 400, 400, then 429', async () => {
    const statuses = [];
    for (const target of ['ftp://example.com/api/products', 'http://user:pw@example.com/api/products', 'ftp://example.com/api/products']) {
      statuses.push((await raw('GET', target, '198.51.100.31')).status);
    }
    assert.deepEqual(statuses, [400, 400, 429]);
  });

  test('a path in absolute form is counted with its origin form', async () => {
    const absolute = `http://${new URL(server.url).host}/api/products`;
    const statuses = [];
    for (const target of [absolute, '/api/products', absolute]) statuses.push((await raw('GET', target, '198.51.100.32')).status);
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});
