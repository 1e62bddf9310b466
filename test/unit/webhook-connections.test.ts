// Kept-alive connections to receivers (src/webhooks/connections.ts): every attempt through a pool, to
// receivers on 127.0.0.0/8 that count their connections. Names resolve through a look-up each test
// scripts (never DNS); what the check allows is what a kept connection may serve.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Agent as HttpsAgent, createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ReceiverConnections } from '../../src/webhooks/connections.ts';
import { sendWebhook, type AttemptResult, type ResolvedAddress, type WebhookRequest } from '../../src/webhooks/send.ts';
import { newWebhookSecret, signatureHeader } from '../../src/webhooks/signature.ts';
import { TEST_CERT, TEST_KEY } from '../support/test-certificate.ts';

interface Received {
  host: string;
  connection: string;
  body: string;
  headers: IncomingMessage['headers'];
  /** Which of the receiver's connections carried it (its index in `sockets`). */
  socket: number;
}

interface Receiver {
  port: number;
  received: Received[];
  /** Every connection accepted, in order; `closed` counts those that have closed since. */
  sockets: Socket[];
  readonly closed: number;
  server: Server;
}

const servers: Server[] = [];
after(() => {
  for (const server of servers) server.closeAllConnections();
  for (const server of servers) server.close();
});

type Answer = (response: ServerResponse, index: number) => void;

/** A receiver on `host` (127.0.0.1 by default) that records each request and its connection, and answers with `answer`. */
async function receiver(answer: Answer, options: { host?: string; port?: number; server?: Server } = {}): Promise<Receiver> {
  const server = options.server ?? createServer();
  // The receiver keeps idle connections for a minute: any closing seen here is the service's.
  server.keepAliveTimeout = 60_000;
  servers.push(server);
  const state = { port: 0, received: [] as Received[], sockets: [] as Socket[], closed: 0, server };
  server.on(server instanceof HttpsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    state.sockets.push(socket);
    socket.on('close', () => state.closed++);
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { headers } = request;
      const socket = state.sockets.indexOf(request.socket as Socket);
      state.received.push({ host: String(headers.host), connection: String(headers.connection), body: Buffer.concat(chunks).toString('utf8'), headers, socket });
      answer(response, state.received.length - 1);
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1').unref();
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  return state;
}

const ok: Answer = (response) => response.writeHead(200).end('ok');

const SECRET = newWebhookSecret();
const BODY = '{"id":"7","type":"product.created","data":{"name":"Th\u00e9"}}';

/** An attempt as the deliverer makes it, through `connections`, loopback allowed unless said otherwise. */
function attempt(connections: ReceiverConnections, url: string, extra: Partial<WebhookRequest> = {}): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { 'content-type': 'application/json', 'webhook-id': '7', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([SECRET], '7', timestamp, BODY) };
  return sendWebhook({ url: new URL(url), headers, body: BODY, timeoutMs: 5_000, allowPrivate: true, connections, ...extra });
}

/** A look-up that answers `answers` in turn (the last one again after that) and records every name it was asked. */
function scriptedLookup(...answers: string[][]): { lookup: (host: string) => Promise<ResolvedAddress[]>; hosts: string[] } {
  const hosts: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    const answer = answers[Math.min(hosts.length, answers.length - 1)] ?? [];
    hosts.push(host);
    return answer.map((address) => ({ address, family: 4 }));
  };
  return { lookup, hosts };
}

/** Resolves once `check` holds, polling; fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); ) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pool = (limits: Partial<ConstructorParameters<typeof ReceiverConnections>[0]> = {}): ReceiverConnections => {
  const connections = new ReceiverConnections({ perKey: 4, total: 256, ...limits });
  // The receivers' certificate (receiver.test) is trusted by this pool's https: agent alone, so its
  // attempts can succeed (tls.setDefaultCACertificates would do it for the process, from Node 22.19 on).
  (connections.route(new URL('https://receiver.test/'), []).agent as HttpsAgent).options.ca = TEST_CERT;
  after(() => connections.close());
  return connections;
};

const delivered = { outcome: 'delivered', status: 200, retryAfterMs: null, reason: '2xx' };

test('attempts to one receiver share one kept-alive connection; each resolves the name and checks it again', { timeout: 30_000 }, async () => {
  const hook = await receiver(ok);
  const connections = pool();
  const { lookup, hosts } = scriptedLookup(['127.0.0.1']);
  for (let i = 0; i < 5; i++) assert.deepEqual(await attempt(connections, `http://receiver.test:${hook.port}/hook`, { lookup }), delivered);
  assert.equal(hook.sockets.length, 1);
  assert.equal(hosts.length, 5, 'a look-up per attempt');
  assert.equal(connections.idle, 1);
  for (const got of hook.received) {
    assert.equal(got.connection, 'keep-alive');
    assert.equal(got.host, `receiver.test:${hook.port}`);
    assert.equal(got.body, BODY);
    assert.deepEqual(new Webhook(SECRET).verify(got.body, got.headers as Record<string, string>), JSON.parse(BODY));
  }
});

test('an answer of any status is read to its end, and its connection serves the next attempt', { timeout: 30_000 }, async () => {
  const statuses = [500, 200, 404, 200];
  const hook = await receiver((response, index) => response.writeHead(statuses[index] ?? 200).end('x'.repeat(20_000)));
  const connections = pool();
  for (const status of statuses) assert.equal((await attempt(connections, `http://127.0.0.1:${hook.port}/`)).status, status);
  assert.equal(hook.sockets.length, 1);
});

test('a name that now resolves to a forbidden address is refused before any kept connection is used', { timeout: 30_000 }, async () => {
  const hook = await receiver(ok, { server: createHttpsServer({ cert: TEST_CERT, key: TEST_KEY }) });
  const connections = pool();
  const url = `https://receiver.test:${hook.port}/hook`;
  // Allowed when the connection was made (a private receiver, SVC_WEBHOOK_ALLOW_PRIVATE) ...
  assert.deepEqual(await attempt(connections, url, { lookup: scriptedLookup(['127.0.0.1']).lookup }), delivered);
  assert.equal(connections.idle, 1);
  // ... forbidden now: the kept connection to that very address must not carry the attempt.
  const { lookup, hosts } = scriptedLookup(['127.0.0.1']);
  assert.deepEqual(await attempt(connections, url, { lookup, allowPrivate: false }), { outcome: 'failed', status: null, retryAfterMs: null, reason: 'forbidden_address' });
  assert.deepEqual(hosts, ['receiver.test']);
  assert.equal(hook.received.length, 1);
});

test('a name that now resolves to another address is sent there, on a new connection; the kept one waits for its own', { timeout: 30_000 }, async () => {
  const first = await receiver(ok);
  const second = await receiver(ok, { host: '127.0.0.2', port: first.port });
  const connections = pool();
  const { lookup } = scriptedLookup(['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']);
  for (let i = 0; i < 3; i++) assert.deepEqual(await attempt(connections, `http://receiver.test:${first.port}/`, { lookup }), delivered);
  assert.deepEqual([first.received.length, second.received.length], [2, 1]);
  assert.deepEqual([first.sockets.length, second.sockets.length], [1, 1]);
});

test('two names on one address never share a connection: each connection carries one name', { timeout: 30_000 }, async () => {
  const hook = await receiver(ok);
  const connections = pool();
  const { lookup } = scriptedLookup(['127.0.0.1']);
  for (const name of ['a.test', 'b.test', 'a.test', 'b.test']) assert.deepEqual(await attempt(connections, `http://${name}:${hook.port}/`, { lookup }), delivered);
  assert.equal(hook.sockets.length, 2);
  const namesOf = (socket: number): string[] => [...new Set(hook.received.filter((got) => got.socket === socket).map((got) => got.host))];
  assert.deepEqual([namesOf(0), namesOf(1)], [[`a.test:${hook.port}`], [`b.test:${hook.port}`]]);
});

/** A receiver written on bare TCP: answers each request on a connection with `respond` (given the connection's and the request's index). */
async function rawReceiver(respond: (socket: Socket, connection: number, request: number) => void): Promise<{ port: number; connections: number; requests: number; closed: number }> {
  const state = { port: 0, connections: 0, requests: 0, closed: 0 };
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    const connection = state.connections++;
    let request = 0;
    socket.on('close', () => state.closed++);
    socket.on('error', () => {});
    // One request a packet is enough here: each attempt writes its head and body at once.
    socket.on('data', () => {
      state.requests++;
      respond(socket, connection, request++);
    });
  });
  server.listen(0, '127.0.0.1').unref();
  after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  return state;
}

const ANSWER_200 = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';

test("a receiver's Connection: close is honoured: the connection is closed by the service, and the next attempt opens another", { timeout: 30_000 }, async () => {
  // It says close, but leaves the connection open: closing it is the client's part.
  const hook = await rawReceiver((socket) => socket.write('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok'));
  const connections = pool();
  for (let i = 0; i < 3; i++) assert.deepEqual(await attempt(connections, `http://127.0.0.1:${hook.port}/`), delivered);
  assert.equal(hook.connections, 3);
  assert.equal(connections.idle, 0);
  await until(() => hook.closed === 3, 'every connection is closed');
});

test('a kept connection the receiver has closed meanwhile: the attempt is sent again once, on a new connection', { timeout: 30_000 }, async () => {
  // The first connection answers its first request, then resets on the next (closed while idle, as a
  // server's keep-alive timeout does); every later connection answers.
  const hook = await rawReceiver((socket, connection, request) => (connection === 0 && request > 0 ? socket.resetAndDestroy() : socket.write(ANSWER_200)));
  const connections = pool();
  assert.deepEqual(await attempt(connections, `http://127.0.0.1:${hook.port}/`), delivered);
  assert.deepEqual(await attempt(connections, `http://127.0.0.1:${hook.port}/`), delivered);
  assert.deepEqual([hook.connections, hook.requests], [2, 3]);
  // A new connection that fails is a failure, never sent again.
  const refused = await rawReceiver((socket) => socket.resetAndDestroy());
  assert.equal((await attempt(connections, `http://127.0.0.1:${refused.port}/`)).reason, 'reset');
  assert.equal(refused.requests, 1);
});

test('a receiver that hangs: its connection is destroyed at the deadline, and the next attempt opens a new one', { timeout: 30_000 }, async () => {
  const hook = await receiver((response, index) => (index === 1 ? undefined : ok(response, index)));
  const connections = pool();
  const url = `http://127.0.0.1:${hook.port}/`;
  assert.deepEqual(await attempt(connections, url), delivered);
  assert.deepEqual(await attempt(connections, url, { timeoutMs: 300 }), { outcome: 'failed', status: null, retryAfterMs: null, reason: 'timeout' });
  await until(() => hook.closed === 1, 'the hung connection is closed');
  assert.equal(connections.idle, 0);
  assert.deepEqual(await attempt(connections, url), delivered);
  assert.equal(hook.sockets.length, 2);
  assert.deepEqual(hook.received.map((got) => got.socket), [0, 0, 1]);
});

test('an answer cut at 64 KiB closes its connection; the next attempt opens a new one', { timeout: 30_000 }, async () => {
  const hook = await receiver((response, index) => response.writeHead(200).end(index === 0 ? Buffer.alloc(1024 * 1024, 'x') : 'ok'));
  const connections = pool();
  const url = `http://127.0.0.1:${hook.port}/`;
  assert.deepEqual(await attempt(connections, url), delivered);
  await until(() => hook.closed === 1, 'the connection cut at the cap is closed');
  assert.deepEqual(await attempt(connections, url), delivered);
  assert.equal(hook.sockets.length, 2);
});

test('idle connections are bounded per key and in all, and closed after their idle time', { timeout: 30_000 }, async () => {
  // Answers after 200 ms, so that the four of a burst are all in flight together; idle for 1.5 s at most,
  // so that the first burst's kept connections outlive the second burst.
  const hook = await receiver((response, index) => setTimeout(() => ok(response, index), 200));
  const connections = pool({ perKey: 2, total: 3, idleMs: 1_500 });
  const { lookup } = scriptedLookup(['127.0.0.1']);
  const burst = (name: string): Promise<AttemptResult[]> => Promise.all(Array.from({ length: 4 }, () => attempt(connections, `http://${name}:${hook.port}/`, { lookup })));
  // Four at once to one name: four connections in use (no attempt waits for another's), two kept.
  assert.ok((await burst('a.test')).every((result) => result.outcome === 'delivered'));
  assert.equal(hook.sockets.length, 4);
  assert.equal(connections.idle, 2);
  await until(() => hook.closed === 2, 'the two beyond the key\'s limit are closed');
  // Four to another name: one more kept, up to three in all.
  assert.ok((await burst('b.test')).every((result) => result.outcome === 'delivered'));
  assert.equal(connections.idle, 3);
  // After their 1.5 s, not the 59 s the receiver's `Keep-Alive: timeout=60` alone would give them.
  await until(() => connections.idle === 0 && hook.closed === 8, 'the idle connections time out', 3_000);
});

test('a receiver that announces no keep-alive time: its idle connection is still closed after the idle time', { timeout: 30_000 }, async () => {
  const hook = await receiver(ok);
  // No `Keep-Alive: timeout=N` in its answers, and it never closes an idle connection itself.
  hook.server.keepAliveTimeout = 0;
  const connections = pool({ idleMs: 1_000 });
  const result = await attempt(connections, `http://127.0.0.1:${hook.port}/`);
  assert.equal(result.outcome, 'delivered');
  assert.equal(hook.received[0]?.headers['keep-alive'], undefined);
  assert.equal(connections.idle, 1);
  await until(() => connections.idle === 0 && hook.closed === 1, 'the idle connection times out', 3_000);
});

test("a receiver's Keep-Alive: timeout=N is honoured: its idle connection is closed N less a second after", { timeout: 30_000 }, async () => {
  const hook = await receiver(ok);
  // `Keep-Alive: timeout=2`: closed by the service after 1 s, well before the pool's 4 s.
  hook.server.keepAliveTimeout = 2_000;
  const connections = pool({ idleMs: 4_000 });
  const sent = Date.now();
  assert.equal((await attempt(connections, `http://127.0.0.1:${hook.port}/`)).outcome, 'delivered');
  assert.equal(connections.idle, 1);
  await until(() => connections.idle === 0 && hook.closed === 1, 'the idle connection times out', 5_000);
  const after = Date.now() - sent;
  assert.ok(after < 1_900, `closed ${after} ms after the attempt: by the service, before the receiver's 2 s`);
});

test('close() closes the idle connections at once, and one in use when its attempt ends', { timeout: 30_000 }, async () => {
  const hook = await receiver((response, index) => (index === 2 ? setTimeout(() => ok(response, index), 200) : ok(response, index)));
  const connections = pool();
  const { lookup } = scriptedLookup(['127.0.0.1']);
  for (const name of ['a.test', 'b.test']) assert.deepEqual(await attempt(connections, `http://${name}:${hook.port}/`, { lookup }), delivered);
  const inFlight = attempt(connections, `http://c.test:${hook.port}/`, { lookup });
  await until(() => hook.received.length === 3, 'the third request arrives');
  connections.close();
  await until(() => hook.closed === 2, 'the idle connections are closed', 1_000);
  assert.deepEqual(await inFlight, delivered);
  await until(() => hook.closed === 3, 'the last connection is closed as its attempt ends', 1_000);
  assert.equal(connections.idle, 0);
});
