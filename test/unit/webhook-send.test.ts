// Black-box tests of one delivery attempt against receivers on 127.0.0.1. Nothing leaves loopback:
// "public" addresses appear only in look-ups whose plan is asserted without connecting.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, createSecureContext } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { planAttempt, sendWebhook, type AttemptResult, type ResolvedAddress, type WebhookRequest } from '../../src/webhooks/send.ts';
import { newWebhookSecret, signatureHeader } from '../../src/webhooks/signature.ts';
import { TEST_CERT, TEST_KEY } from '../support/test-certificate.ts';

interface Received {
  headers: IncomingMessage['headers'];
  url: string;
  method: string;
  body: string;
}

interface Receiver {
  port: number;
  received: Received[];
  connections: number;
  server: Server;
}

const servers: Server[] = [];
after(() => {
  for (const server of servers) server.close();
  for (const server of servers) server.closeAllConnections();
});

/** A receiver on 127.0.0.1 that records each request and answers with `answer`. */
async function receiver(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<Receiver> {
  const server = createServer();
  servers.push(server);
  const state: Receiver = { port: 0, received: [], connections: 0, server };
  server.on('connection', () => state.connections++);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.received.push({ headers: request.headers, url: request.url ?? '', method: request.method ?? '', body: Buffer.concat(chunks).toString('utf8') });
      answer(request, response);
    });
  });
  // Unreferenced: a test that fails half-way must not keep the process alive with its receivers.
  server.listen(0, '127.0.0.1').unref();
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  return state;
}

const answering = (status: number, headers: Record<string, string> = {}) => (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(status, headers).end('ok');
};

const SECRET = newWebhookSecret();
const BODY = '{"id":"7","type":"product.created","data":{"name":"Th\u00e9"}}';

/** An attempt as the delivery worker makes it, to `url`, loopback allowed unless said otherwise. */
function attempt(url: string, extra: Partial<WebhookRequest> = {}): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { 'content-type': 'application/json', 'webhook-id': '7', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([SECRET], '7', timestamp, BODY) };
  return sendWebhook({ url: new URL(url), headers, body: BODY, timeoutMs: 5_000, allowPrivate: true, ...extra });
}

/** A look-up that answers `answers` in turn (the last one again after that) and counts its calls. */
function scriptedLookup(...answers: string[][]): { lookup: (host: string) => Promise<ResolvedAddress[]>; hosts: string[] } {
  const hosts: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    const answer = answers[Math.min(hosts.length, answers.length - 1)] ?? [];
    hosts.push(host);
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, hosts };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('2xx delivers: the body and headers arrive as sent, signed so standardwebhooks verifies them', { timeout: 30_000 }, async () => {
  for (const status of [200, 201, 202, 204, 299]) {
    const hook = await receiver(answering(status));
    const result = await attempt(`http://127.0.0.1:${hook.port}/hooks/svc?token=abc`);
    assert.deepEqual(result, { outcome: 'delivered', status, retryAfterMs: null, reason: '2xx' });
    const [got] = hook.received;
    assert.ok(got !== undefined);
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hooks/svc?token=abc');
    assert.equal(got.body, BODY);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['content-length'], String(Buffer.byteLength(BODY)));
    assert.equal(got.headers.host, `127.0.0.1:${hook.port}`);
    assert.deepEqual(new Webhook(SECRET).verify(got.body, got.headers as Record<string, string>), JSON.parse(BODY));
  }
});

test('without kept connections to reuse, each attempt opens its own connection and asks to close it', { timeout: 30_000 }, async () => {
  const hook = await receiver(answering(200));
  for (let i = 0; i < 3; i++) assert.equal((await attempt(`http://127.0.0.1:${hook.port}/`)).outcome, 'delivered');
  assert.equal(hook.connections, 3);
  assert.ok(hook.received.every(({ headers }) => headers.connection === 'close'));
});

test('another status fails the attempt; 410 is gone', { timeout: 30_000 }, async () => {
  for (const [status, outcome, reason] of [[500, 'failed', 'status'], [400, 'failed', 'status'], [404, 'failed', 'status'], [410, 'gone', 'gone'], [418, 'failed', 'status'], [599, 'failed', 'status']] as const) {
    const hook = await receiver(answering(status));
    assert.deepEqual(await attempt(`http://127.0.0.1:${hook.port}/`), { outcome, status, retryAfterMs: null, reason });
  }
});

test('a redirect fails the attempt and is never followed: its target receives nothing', { timeout: 30_000 }, async () => {
  const target = await receiver(answering(200));
  for (const status of [301, 302, 303, 307, 308]) {
    const hook = await receiver(answering(status, { location: `http://127.0.0.1:${target.port}/elsewhere` }));
    assert.deepEqual(await attempt(`http://127.0.0.1:${hook.port}/`), { outcome: 'failed', status, retryAfterMs: null, reason: 'redirect' });
    assert.equal(hook.received.length, 1);
  }
  await pause(200);
  assert.equal(target.connections, 0);
});

test('Retry-After is read on 429 and 503, in seconds or as an HTTP-date, and ignored on other statuses', { timeout: 30_000 }, async () => {
  const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
  const cases = [[429, '120', 120_000], [503, '30', 30_000], [503, inTwoMinutes, 120_000], [429, 'soon', null], [500, '120', null], [429, undefined, null]] as const;
  for (const [status, retryAfter, expected] of cases) {
    const hook = await receiver(answering(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter }));
    const result = await attempt(`http://127.0.0.1:${hook.port}/`);
    assert.equal(result.outcome, 'failed');
    assert.equal(result.status, status);
    if (typeof retryAfter === 'string' && retryAfter.includes('GMT')) {
      assert.ok(result.retryAfterMs !== null && Math.abs(result.retryAfterMs - 120_000) <= 2_000, `${result.retryAfterMs} for ${retryAfter}`);
    } else assert.equal(result.retryAfterMs, expected, `${status} Retry-After ${retryAfter}`);
  }
});

test('a receiver that never answers times out within the one deadline of the attempt', { timeout: 30_000 }, async () => {
  let closed = 0;
  const hook = await receiver(() => {});
  hook.server.on('connection', (socket: Socket) => socket.on('close', () => closed++));
  const started = Date.now();
  const result = await attempt(`http://127.0.0.1:${hook.port}/`, { timeoutMs: 300 });
  assert.deepEqual(result, { outcome: 'failed', status: null, retryAfterMs: null, reason: 'timeout' });
  assert.ok(Date.now() - started >= 290, 'not before the deadline');
  for (const until = Date.now() + 10_000; closed === 0 && Date.now() < until; ) await pause(20);
  assert.equal(closed, 1, 'the connection was closed at the deadline');
});

test('a body that never ends is cut off at the deadline, and a huge one at the cap; the status decides', { timeout: 30_000 }, async () => {
  let written = 0;
  const endless = await receiver((_request, response) => {
    response.writeHead(200);
    const more = (): void => {
      while (!response.destroyed && response.write(Buffer.alloc(16 * 1024, 'x'))) written += 16 * 1024;
      if (!response.destroyed) response.once('drain', more);
    };
    more();
  });
  assert.equal((await attempt(`http://127.0.0.1:${endless.port}/`, { timeoutMs: 10_000 })).outcome, 'delivered');
  // Socket buffers on loopback hold a few megabytes; without the cap it would be gigabytes.
  assert.ok(written < 64 * 1024 * 1024, `${written} bytes written before the cut`);
  const dripping = await receiver((_request, response) => {
    response.writeHead(500);
    response.write('x');
  });
  const started = Date.now();
  assert.deepEqual(await attempt(`http://127.0.0.1:${dripping.port}/`, { timeoutMs: 300 }), { outcome: 'failed', status: 500, retryAfterMs: null, reason: 'status' });
  assert.ok(Date.now() - started >= 290);
});

test('a closed port is a refused connection', { timeout: 30_000 }, async () => {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  assert.deepEqual(await attempt(`http://127.0.0.1:${port}/`), { outcome: 'failed', status: null, retryAfterMs: null, reason: 'refused' });
});

test('a look-up that fails, finds nothing or never answers fails the attempt before any connection', { timeout: 30_000 }, async () => {
  const failing = async (): Promise<ResolvedAddress[]> => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  assert.equal((await attempt('http://receiver.test/', { lookup: failing })).reason, 'dns');
  assert.equal((await attempt('http://receiver.test/', { lookup: async () => [] })).reason, 'dns');
  const never = (): Promise<ResolvedAddress[]> => new Promise(() => {});
  assert.equal((await attempt('http://receiver.test/', { lookup: never, timeoutMs: 200 })).reason, 'timeout');
});

test('by default, a name that resolves to loopback is refused and nothing reaches the receiver', { timeout: 30_000 }, async () => {
  const hook = await receiver(answering(200));
  // Only loopback answers here, so that even a broken check could connect nowhere else.
  for (const answer of [['127.0.0.1'], ['::1'], ['::ffff:127.0.0.1'], ['127.0.0.1', '127.0.0.2']]) {
    const { lookup, hosts } = scriptedLookup(answer);
    const result = await attempt(`https://receiver.test:${hook.port}/`, { lookup, allowPrivate: false });
    assert.deepEqual(result, { outcome: 'failed', status: null, retryAfterMs: null, reason: 'forbidden_address' }, answer.join(' '));
    assert.deepEqual(hosts, ['receiver.test']);
  }
  // An address literal, http: and a local name are refused before any look-up, whatever the settings were at creation.
  for (const url of [`https://127.0.0.1:${hook.port}/`, `https://[::1]:${hook.port}/`, `http://receiver.test:${hook.port}/`, `https://localhost:${hook.port}/`]) {
    const { lookup, hosts } = scriptedLookup(['127.0.0.1']);
    assert.equal((await attempt(url, { lookup, allowPrivate: false })).reason, 'forbidden_target', url);
    assert.deepEqual(hosts, []);
  }
  await pause(100);
  assert.equal(hook.connections, 0);
});

// Plans only from here on: an attempt with a public address in its answer would leave loopback.
test('by default, a name with any forbidden address among its answers is refused whole, in any order', { timeout: 30_000 }, async () => {
  for (const answer of [['93.184.215.14', '127.0.0.1'], ['127.0.0.1', '93.184.215.14'], ['2606:4700::6810:84e5', 'fd00::1'], ['93.184.215.14', '10.0.0.8'], ['169.254.169.254'], ['64:ff9b::a9fe:a9fe']]) {
    const { lookup, hosts } = scriptedLookup(answer);
    const plan = await planAttempt(new URL('https://receiver.test/hook'), false, lookup);
    assert.deepEqual(plan, { ok: false, result: { outcome: 'failed', status: null, retryAfterMs: null, reason: 'forbidden_address' } }, answer.join(' '));
    assert.deepEqual(hosts, ['receiver.test']);
  }
  const { lookup } = scriptedLookup(['93.184.215.14', '2606:4700::6810:84e5']);
  assert.deepEqual(await planAttempt(new URL('https://receiver.test/hook'), false, lookup), {
    ok: true,
    host: 'receiver.test',
    addresses: [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::6810:84e5', family: 6 }],
  });
});

test('DNS rebinding: the name is resolved once, and the plan holds the address that was checked', { timeout: 30_000 }, async () => {
  const { lookup, hosts } = scriptedLookup(['93.184.215.14'], ['127.0.0.1']);
  const plan = await planAttempt(new URL('https://receiver.test/hook'), false, lookup);
  assert.deepEqual(plan, { ok: true, host: 'receiver.test', addresses: [{ address: '93.184.215.14', family: 4 }] });
  assert.deepEqual(hosts, ['receiver.test']);
});

test('the connection goes to the address that was looked up, never a second answer; Host stays the name', { timeout: 30_000 }, async () => {
  const hook = await receiver(answering(200));
  // 127.0.0.2 has no listener on that port: a second look-up would make the attempt refused.
  const { lookup, hosts } = scriptedLookup(['127.0.0.1'], ['127.0.0.2']);
  const result = await attempt(`http://receiver.test:${hook.port}/hook`, { lookup });
  assert.equal(result.outcome, 'delivered');
  assert.deepEqual(hosts, ['receiver.test']);
  assert.equal(hook.received[0]?.headers.host, `receiver.test:${hook.port}`);
});

test('every checked address may be tried in the order resolved, and no other', { timeout: 30_000 }, async () => {
  const hook = await receiver(answering(200));
  // Nothing listens on 127.0.0.2 or 127.0.0.3 at that port: each is refused.
  const both = scriptedLookup(['127.0.0.2', '127.0.0.1'], ['127.0.0.3']);
  assert.equal((await attempt(`http://receiver.test:${hook.port}/`, { lookup: both.lookup })).outcome, 'delivered');
  assert.equal(both.hosts.length, 1);
  const neither = scriptedLookup(['127.0.0.2', '127.0.0.3'], ['127.0.0.1']);
  assert.equal((await attempt(`http://receiver.test:${hook.port}/`, { lookup: neither.lookup })).reason, 'refused');
  assert.equal(neither.hosts.length, 1);
  assert.equal(hook.received.length, 1);
});

test('https: the TLS name is the URL\'s name, the certificate is verified, and a failed handshake is tls', { timeout: 30_000 }, async () => {
  const names: string[] = [];
  const context = createSecureContext({ cert: TEST_CERT, key: TEST_KEY });
  const tls = createTlsServer({ cert: TEST_CERT, key: TEST_KEY, SNICallback: (name, done) => (names.push(name), done(null, context)) });
  tls.on('tlsClientError', () => {});
  tls.on('secureConnection', (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
  tls.listen(0, '127.0.0.1').unref();
  after(() => tls.close());
  await once(tls, 'listening');
  const { port } = tls.address() as AddressInfo;
  const { lookup, hosts } = scriptedLookup(['127.0.0.1']);
  // Self-signed: refused, as any certificate no public authority vouches for is.
  assert.equal((await attempt(`https://receiver.test.:${port}/`, { lookup })).reason, 'tls');
  assert.deepEqual(names, ['receiver.test']);
  assert.deepEqual(hosts, ['receiver.test.']);
  const plain = await receiver(answering(200));
  assert.equal((await attempt(`https://127.0.0.1:${plain.port}/`)).reason, 'tls', 'https: to a plain HTTP receiver');
  assert.equal(plain.received.length, 0);
});
