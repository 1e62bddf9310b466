import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { eventually } from '../support/assertions.ts';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { API_AUDIENCE, startIdentityProvider } from '../support/identity-provider.ts';
import { bearer, startKeysServer } from '../support/keys.ts';
import { startTestServer } from '../support/server.ts';

// Streams cannot crowd out the rest of the API (docs/events.md, The live stream): one caller holds at
// most SVC_STREAMS_PER_CALLER streams per process (429), all callers together SVC_MAX_STREAMS (503,
// half of SVC_MAX_CONNECTIONS by default), and whatever the streams, ping and ordinary requests are
// answered. Callers are many source addresses of 127.0.0.0/8 when the service is open, keys with
// SVC_AUTH=keys. Before these limits, 20 streams of one caller took every connection of
// SVC_MAX_CONNECTIONS=20 and the 21st connection (a ping, an admin's request) was reset.

const address = (n: number): string => `127.0.0.${n}`;

interface Attempt {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
  connection: string | undefined;
  stream: OpenStream;
}

// One stream asked for on a connection of its own; a refusal's body is read to the end (the server closes it).
async function attempt(url: string, headers: Record<string, string>, from: string): Promise<Attempt> {
  const stream = await openStream(`${url}/api/events`, headers, { localAddress: from });
  if (stream.status === 200) return { status: 200, code: undefined, retryAfter: undefined, connection: undefined, stream };
  await stream.ended;
  const problem = JSON.parse(stream.text) as { code: string };
  return { status: stream.status, code: problem.code, retryAfter: stream.headers['retry-after'], connection: stream.headers.connection, stream };
}

// GET on a new connection from `from` (so no connection is reused): the status, or the error that ended it.
function getOnNewConnection(url: string, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { headers, localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

// Asks again (a refused attempt closes its connection) until a stream is admitted.
async function admittedEventually(url: string, headers: Record<string, string>, from: string): Promise<OpenStream> {
  let admitted: OpenStream | undefined;
  await eventually(
    `a stream from ${from} admitted`,
    async () => {
      const tried = await attempt(url, headers, from);
      if (tried.status === 200) admitted = tried.stream;
      return admitted !== undefined;
    },
    10_000,
    50,
  );
  return admitted as OpenStream;
}

const closeAll = (streams: readonly OpenStream[]): void => {
  for (const stream of streams) stream.close();
};

test('open service, SVC_MAX_CONNECTIONS=20: 30 callers (addresses) ask for a stream; 10 get one, 20 get 503, and ping and ordinary requests are answered', { timeout: 60_000 }, async () => {
  const server = await startTestServer({ SVC_MAX_CONNECTIONS: '20', SVC_METRICS_PORT: '0' });
  const open: OpenStream[] = [];
  try {
    const attempts: (Attempt | string)[] = [];
    for (let n = 10; n < 40; n++) {
      const tried = await attempt(server.url, {}, address(n)).catch((error: NodeJS.ErrnoException) => `${address(n)}: ${error.code ?? error.message}`);
      if (typeof tried !== 'string' && tried.status === 200) open.push(tried.stream);
      attempts.push(tried);
    }
    const reset = attempts.filter((tried) => typeof tried === 'string');
    assert.deepEqual(reset, [], 'no connection reset');
    const answered = attempts as Attempt[];
    assert.equal(answered.filter((tried) => tried.status === 200).length, 10, 'SVC_MAX_STREAMS is half of SVC_MAX_CONNECTIONS by default');
    const refused = answered.filter((tried) => tried.status !== 200);
    assert.equal(refused.length, 20);
    for (const tried of refused) {
      assert.deepEqual([tried.status, tried.code, tried.retryAfter, tried.connection], [503, 'unavailable', '5', 'close'], 'the process is full: 503, and the connection is not kept');
    }
    assert.ok(answered.slice(0, 10).every((tried) => tried.status === 200), 'the first ten were admitted');

    // Whatever the streams: readiness and an ordinary request, each on a connection of its own.
    assert.equal(await getOnNewConnection(`${server.url}/api/ping`), 200);
    assert.equal(await getOnNewConnection(`${server.url}/api/products`), 200);
    assert.equal(await getOnNewConnection(`${server.url}/api/events`, {}, address(60)), 200, 'the feed as JSON is an ordinary request');

    // A stream that ends frees its place: the client goes away, and another caller is admitted.
    open.shift()?.close();
    open.push(await admittedEventually(server.url, {}, address(61)));
    const refusals = await (await fetch(server.metricsUrl as string)).text();
    assert.match(refusals, /^event_streams_refused_total\{limit="process"\} (2\d)$/m);
    assert.match(refusals, /^event_streams_refused_total\{limit="caller"\} 0$/m);
    assert.match(refusals, /^event_streams_open 10$/m);
  } finally {
    closeAll(open);
    await server.stop();
  }
});

test('open service: one address holds SVC_STREAMS_PER_CALLER streams (5); the 6th is 429 with Retry-After, another address is still admitted', { timeout: 60_000 }, async () => {
  const server = await startTestServer();
  const open: OpenStream[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const tried = await attempt(server.url, {}, address(70));
      assert.equal(tried.status, 200, `stream ${i + 1}`);
      open.push(tried.stream);
    }
    const sixth = await attempt(server.url, {}, address(70));
    assert.deepEqual([sixth.status, sixth.code, sixth.retryAfter, sixth.connection], [429, 'rate_limited', '5', 'close']);
    assert.equal(sixth.stream.headers['content-type'], 'application/problem+json');
    const head = await new Promise<number>((resolve, reject) => {
      request(`${server.url}/api/events`, { method: 'HEAD', headers: { accept: 'text/event-stream' }, localAddress: address(70), agent: false }, (res) => resolve(res.statusCode ?? 0))
        .on('error', reject)
        .end();
    });
    assert.equal(head, 429, 'a HEAD gets the stream\'s checks, this one too');
    const elsewhere = await attempt(server.url, {}, address(71));
    assert.equal(elsewhere.status, 200, 'another address is another caller');
    open.push(elsewhere.stream);
    assert.equal(await getOnNewConnection(`${server.url}/api/products`, {}, address(70)), 200, 'the caller\'s other requests are answered');
    // One of its streams ends: it may open one again.
    open.shift()?.close();
    open.push(await admittedEventually(server.url, {}, address(70)));
  } finally {
    closeAll(open);
    await server.stop();
  }
});

test('SVC_AUTH=keys, SVC_MAX_CONNECTIONS=20: a key holds 5 streams from any address, all keys 10; a revoked key\'s streams free their places; ping and an admin\'s request are answered', { timeout: 60_000 }, async () => {
  const server = await startKeysServer({ SVC_MAX_CONNECTIONS: '20' });
  const open: OpenStream[] = [];
  try {
    const [first, second, third] = await Promise.all(['first', 'second', 'third'].map((name) => server.newKey({ name, scopes: ['read'] })));
    assert.ok(first !== undefined && second !== undefined && third !== undefined);
    // The first key from seven addresses: the key is the caller, wherever it calls from.
    const firstStreams: OpenStream[] = [];
    const statuses: number[] = [];
    for (let n = 80; n < 87; n++) {
      const tried = await attempt(server.url, bearer(first.key), address(n));
      statuses.push(tried.status);
      if (tried.status === 200) firstStreams.push(tried.stream);
      else assert.deepEqual([tried.code, tried.retryAfter, tried.connection], ['rate_limited', '5', 'close']);
    }
    open.push(...firstStreams);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    // The second key from one address, the first key's last one included.
    for (let i = 0; i < 5; i++) {
      const tried = await attempt(server.url, bearer(second.key), address(86));
      assert.equal(tried.status, 200, `second key, stream ${i + 1}`);
      open.push(tried.stream);
    }
    const full = await attempt(server.url, bearer(third.key), address(90));
    assert.deepEqual([full.status, full.code, full.retryAfter, full.connection], [503, 'unavailable', '5', 'close']);
    assert.equal(await getOnNewConnection(`${server.url}/api/ping`), 200);
    assert.equal(await getOnNewConnection(`${server.url}/api/keys`, bearer(server.admin.key)), 200);

    // Revoked, the first key's five streams end (within 5 s), and their places are the third key's.
    assert.equal((await fetch(`${server.url}/api/keys/${first.id}`, { method: 'DELETE', headers: bearer(server.admin.key) })).status, 204);
    await Promise.all(firstStreams.map((stream) => stream.ended));
    for (let i = 0; i < 5; i++) open.push(await admittedEventually(server.url, bearer(third.key), address(91)));
    const sixth = await attempt(server.url, bearer(third.key), address(92));
    assert.deepEqual([sixth.status, sixth.code], [429, 'rate_limited'], 'the third key now holds its five');
  } finally {
    closeAll(open);
    await server.stop();
  }
});

test('SVC_AUTH=jwt: the caller is the token\'s sub, whatever the token and the address', { timeout: 60_000 }, async () => {
  const provider = await startIdentityProvider('ES256');
  const server = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE, SVC_STREAMS_PER_CALLER: '2' });
  const open: OpenStream[] = [];
  const tokenOf = (sub: string, jti: string): string =>
    provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub, jti, exp: Math.floor(Date.now() / 1000) + 600, scope: 'read' });
  try {
    // Two tokens of one sub, from two addresses: one caller.
    for (const [jti, from] of [['a', 110], ['b', 111]] as const) {
      const tried = await attempt(server.url, bearer(tokenOf('robot-1', jti)), address(from));
      assert.equal(tried.status, 200, `token ${jti}`);
      open.push(tried.stream);
    }
    const third = await attempt(server.url, bearer(tokenOf('robot-1', 'c')), address(112));
    assert.deepEqual([third.status, third.code], [429, 'rate_limited'], 'a third token of the same sub');
    const other = await attempt(server.url, bearer(tokenOf('robot-2', 'a')), address(110));
    assert.equal(other.status, 200, 'another sub, from an address the first one uses');
    open.push(other.stream);
  } finally {
    closeAll(open);
    await server.stop();
    await provider.stop();
  }
});

test('a client that goes away before its stream\'s head is sent holds no place', { timeout: 60_000 }, async () => {
  const server = await startTestServer({ SVC_STREAMS_PER_CALLER: '1', SVC_METRICS_PORT: '0' });
  const open: OpenStream[] = [];
  try {
    const first = await attempt(server.url, {}, address(100));
    assert.equal(first.status, 200);
    await eventually('the first stream has an event', async () => {
      const response = await fetch(`${server.url}/api/products`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"a","priceInCents":1}' });
      await response.arrayBuffer();
      return first.stream.messages.length > 0;
    }, 10_000, 100);
    const lastEventId = first.stream.messages[0]?.id as string;
    first.stream.close();
    // Each asks to resume (its place is read before the head) and leaves at once, 50 times.
    for (let i = 0; i < 50; i++) {
      await new Promise<void>((resolve) => {
        const req = request(`${server.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId }, localAddress: address(100), agent: false });
        req.on('error', () => resolve());
        req.on('response', () => {
          req.destroy();
          resolve();
        });
        req.end(() => setImmediate(() => req.destroy()));
      });
    }
    open.push(await admittedEventually(server.url, {}, address(100)));
    await eventually('only that stream is open', async () => /^event_streams_open 1$/m.test(await (await fetch(server.metricsUrl as string)).text()), 10_000, 100);
  } finally {
    closeAll(open);
    await server.stop();
  }
});
