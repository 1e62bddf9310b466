import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { openStream, type StreamMessage } from '../support/event-stream.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { rawConnect } from '../ops/support.ts';

// The live stream of docs/events.md over real sockets, on the run's engine: the format, where it starts,
// the checks made before it starts, and what bounds it (connections, timeouts, shutdown, a reader
// that stops reading).

interface Event {
  id: string;
  type: string;
  createdAt: string;
  data: { id: number; name: string };
}

const eventOf = (message: StreamMessage): Event => JSON.parse(message.data) as Event;

async function createProduct(url: string, name: string): Promise<number> {
  const response = await postJson(`${url}/api/products`, { name, priceInCents: 100 });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: number }).id;
}

// The events recorded so far, oldest first, read from the JSON feed page by page.
async function feedEvents(url: string): Promise<Event[]> {
  const events: Event[] = [];
  let after: string | undefined;
  for (;;) {
    const response = await fetch(`${url}/api/events?limit=200${after === undefined ? '' : `&after=${after}`}`);
    assert.equal(response.status, 200);
    const page = (await response.json()) as Event[];
    events.push(...page);
    if (page.length === 0) return events;
    after = page.at(-1)?.id;
  }
}

const feedIds = async (url: string): Promise<string[]> => (await feedEvents(url)).map((event) => event.id);

// Creates a product; resolves with its event's id once the feed shows it (on PostgreSQL a moment
// after the 201: once the sequencer gave it its position).
async function createShown(url: string, name: string): Promise<string> {
  const id = await createProduct(url, name);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const shown = (await feedEvents(url)).find((event) => event.type === 'product.created' && event.data.id === id);
    if (shown !== undefined) return shown.id;
    assert.ok(Date.now() < deadline, `the feed shows product ${id}'s event`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the live stream', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('200 text/event-stream, no buffering by proxies, the headers of every response; one message per event: id, event, data (the Event as one line)', async () => {
    const stream = await openStream(`${server.url}/api/events`);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers['x-accel-buffering'], 'no');
      assert.equal(stream.headers['cache-control'], 'no-store');
      assert.equal(stream.headers['x-content-type-options'], 'nosniff');
      assert.equal(stream.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
      assert.match(String(stream.headers['x-request-id']), /./);
      await stream.waitForComments(1, 5_000);
      assert.ok(stream.comments >= 1, 'a comment at once, so the head goes through a proxy at once');
      const id = await createProduct(server.url, 'Desk lamp');
      const [message] = await stream.waitFor(1);
      assert.ok(message !== undefined);
      const event = eventOf(message);
      assert.equal(message.id, event.id);
      assert.match(event.id, /^[A-Za-z0-9_-]{1,64}$/);
      assert.equal(message.event, 'product.created');
      assert.equal(event.type, 'product.created');
      assert.equal(event.data.id, id);
      assert.deepEqual(Object.keys(event), ['id', 'type', 'createdAt', 'data']);
      // The message block exactly: three fields, the data one line, a blank line after.
      assert.ok(stream.text.includes(`id: ${event.id}\nevent: product.created\ndata: ${message.data}\n\n`));
    } finally {
      stream.close();
    }
  });

  test('a change made as soon as the head has come always reaches the stream, on every try', async () => {
    // The place "now" stands for is fixed before the head is sent, so the first write cannot fall before it.
    for (let attempt = 0; attempt < 20; attempt++) {
      const stream = await openStream(`${server.url}/api/events`);
      try {
        const id = await createProduct(server.url, `at once ${attempt}`);
        const [message] = await stream.waitFor(1, 10_000);
        assert.equal(eventOf(message as StreamMessage).data.id, id, `attempt ${attempt}`);
      } finally {
        stream.close();
        await stream.ended;
      }
    }
  });

  test('HEAD with Accept: text/event-stream: the checks and the head of the stream, no body, no stream left open', async () => {
    const head = await fetch(`${server.url}/api/events?type=product.created`, { method: 'HEAD', headers: { accept: 'text/event-stream' } });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(head.headers.get('connection'), 'close');
    assert.equal(await head.text(), '');
    const refused = await fetch(`${server.url}/api/events`, { method: 'HEAD', headers: { accept: 'text/event-stream', 'last-event-id': 'not.an.id' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    const feed = await fetch(`${server.url}/api/events`, { method: 'HEAD' });
    assert.equal(feed.headers.get('content-type'), 'application/json; charset=utf-8', 'without that Accept, HEAD is the JSON page');
  });

  test('limit means nothing to a stream: a bad one is ignored, as on no page', async () => {
    const stream = await openStream(`${server.url}/api/events?limit=999`);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    } finally {
      stream.close();
    }
    assert.equal((await fetch(`${server.url}/api/events?limit=999`)).status, 400, 'the page still checks it');
  });

  test('without Last-Event-ID or after it starts with what is recorded from now on', async () => {
    await createProduct(server.url, 'before');
    const stream = await openStream(`${server.url}/api/events`);
    try {
      await stream.waitForComments(1, 5_000);
      await createProduct(server.url, 'after');
      // On PostgreSQL an event committed just before may become visible only now (docs/events.md):
      // it may come too, but nothing older does.
      const deadline = Date.now() + 10_000;
      while (!stream.messages.some((message) => eventOf(message).data.name === 'after') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const names = stream.messages.map((message) => eventOf(message).data.name);
      assert.equal(names.at(-1), 'after');
      assert.ok(names.every((name) => name === 'before' || name === 'after'), names.join(', '));
    } finally {
      stream.close();
    }
  });

  test('Last-Event-ID: the stream goes on exactly after that event, and wins over ?after=', async () => {
    const first = await openStream(`${server.url}/api/events`);
    await first.waitForComments(1, 5_000);
    for (const name of ['one', 'two', 'three']) await createProduct(server.url, name);
    const seen = await first.waitFor(3);
    const [one, two, three] = seen.map((message) => message.id as string);
    // Twice: while another stream keeps the process's reader running (it holds the recent events),
    // and once it has stopped (the stream reads from its place itself).
    const after = [two, three];
    for (const keeper of [first, null]) {
      const resumed = await openStream(`${server.url}/api/events?after=${three}`, { 'last-event-id': one as string });
      try {
        const messages = await resumed.waitFor(after.length);
        assert.deepEqual(messages.map((message) => message.id), after);
        await createProduct(server.url, `more ${after.length}`);
        const latest = (await resumed.waitFor(after.length + 1)).at(-1) as StreamMessage;
        assert.equal(eventOf(latest).data.name, `more ${after.length}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(resumed.messages.length, after.length + 1, 'no repeats');
        after.push(latest.id as string);
      } finally {
        resumed.close();
        keeper?.close();
        await keeper?.ended;
      }
    }
    const fromAfter = await openStream(`${server.url}/api/events?after=${two}`);
    try {
      const [next] = await fromAfter.waitFor(1);
      assert.equal(next?.id, three);
    } finally {
      fromAfter.close();
    }
  });

  test('no gap and no repeat across reconnections with Last-Event-ID while writes go on', async () => {
    const start = await createShown(server.url, 'the start');
    const writes = (async () => {
      for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 10 }, (_, i) => createProduct(server.url, `burst ${batch}-${i}`)));
    })();
    const received: string[] = [];
    let last = start;
    // Reconnect after every few messages, as a flaky network would make an EventSource do.
    for (let round = 0; round < 40 && received.length < 100; round++) {
      const stream = await openStream(`${server.url}/api/events`, { 'last-event-id': last });
      await stream.waitFor(Math.min(3, 100 - received.length), 20_000);
      stream.close();
      await stream.ended;
      for (const message of stream.messages) received.push(message.id as string);
      last = received.at(-1) as string;
    }
    await writes;
    const fed = await feedIds(server.url);
    assert.deepEqual(received, fed.slice(fed.indexOf(start) + 1).slice(0, received.length));
    assert.equal(received.length, 100);
  });

  test('?type= keeps only those types: on a live stream, one resumed from the reader\'s recent events, and one resumed from the database', async () => {
    const renamed = await createProduct(server.url, 'to rename');
    const rename = async (name: string): Promise<void> => {
      assert.equal((await patchJson(`${server.url}/api/products/${renamed}`, { name })).status, 200);
    };
    const all = await openStream(`${server.url}/api/events`);
    const filtered = await openStream(`${server.url}/api/events?type=product.updated`);
    await Promise.all([all.waitForComments(1, 5_000), filtered.waitForComments(1, 5_000)]);
    await createProduct(server.url, 'p1');
    await rename('w1');
    await createProduct(server.url, 'p2');
    await rename('w2');
    // On PostgreSQL the event of 'to rename' may become visible only after `all` opened, and come first.
    const everything = await all.waitFor(4);
    const names = (messages: readonly StreamMessage[]): string[] => messages.map((message) => `${message.event} ${eventOf(message).data.name}`);
    // Two messages in order: had a product.created come, it would be among them.
    assert.deepEqual(names(await filtered.waitFor(2)), ['product.updated w1', 'product.updated w2'], 'live');
    filtered.close();
    const fromW1 = everything.find((message) => names([message])[0] === 'product.updated w1')?.id as string;
    assert.ok(fromW1 !== undefined, names(everything).join(', '));
    // While `all` keeps the process's reader running, a resumed stream joins from its recent events;
    // once every stream is closed, it reads from the database itself.
    const expected = ['product.updated w2'];
    for (const keeper of [all, null]) {
      const resumed = await openStream(`${server.url}/api/events?type=product.updated`, { 'last-event-id': fromW1 });
      try {
        const name = keeper === null ? 'from the database' : 'from the reader';
        await rename(name);
        expected.push(`product.updated ${name}`);
        assert.deepEqual(names(await resumed.waitFor(expected.length)), expected, name);
      } finally {
        resumed.close();
        keeper?.close();
        await keeper?.ended;
      }
    }
  });

  test('a malformed or unknown Last-Event-ID is 400 invalid_header, an after= of the same kind 400 invalid_query: both before any stream', async () => {
    const known = await createShown(server.url, 'known');
    // A well-formed id no event has: a real one with a digit more at its end.
    for (const [value, code] of [
      ['not.an.id', 'invalid_header'],
      ['', 'invalid_header'],
      [`${known}9`, 'invalid_header'],
    ] as const) {
      const response = await fetch(`${server.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': value } });
      assert.equal(response.status, 400, value);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
    const response = await fetch(`${server.url}/api/events?after=${known}9`, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { code: string }).code, 'invalid_query');
  });

  test('each stream ends with one access-log line, with its whole duration', async () => {
    const stream = await openStream(`${server.url}/api/events`, { 'x-request-id': 'stream-logged' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(server.logs.filter((line) => line['reqId'] === 'stream-logged').length, 0, 'not logged while open');
    stream.close();
    await stream.ended;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && !server.logs.some((line) => line['reqId'] === 'stream-logged')) await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = server.logs.filter((line) => line['reqId'] === 'stream-logged');
    assert.equal(lines.length, 1);
    assert.equal((lines[0]?.['res'] as { statusCode: number }).statusCode, 200);
    assert.ok((lines[0]?.['responseTime'] as number) >= 400);
  });

  test('a quiet stream gets a comment line at least every 15 s', { timeout: 40_000 }, async () => {
    const stream = await openStream(`${server.url}/api/events`);
    try {
      await stream.waitForComments(1, 5_000);
      const before = stream.comments;
      const started = Date.now();
      await stream.nextComment(16_000);
      assert.ok(stream.comments > before);
      assert.ok(Date.now() - started <= 15_500);
    } finally {
      stream.close();
    }
  });
});

test('event_streams_open counts the open streams', async () => {
  const server = await startTestServer({ SVC_METRICS_PORT: '0' });
  const open = async (): Promise<number> => {
    const text = await (await fetch(server.metricsUrl as string)).text();
    return Number(/^event_streams_open (\d+)$/m.exec(text)?.[1] ?? 'NaN');
  };
  try {
    assert.equal(await open(), 0);
    const streams = [await openStream(`${server.url}/api/events`), await openStream(`${server.url}/api/events`)];
    await Promise.all(streams.map((stream) => stream.waitForComments(1, 5_000)));
    assert.equal(await open(), 2);
    for (const stream of streams) stream.close();
    const deadline = Date.now() + 5_000;
    while ((await open()) !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await open(), 0);
  } finally {
    await server.stop();
  }
});

describe('what bounds a stream', () => {
  test('the request timeout does not end a stream', { timeout: 30_000 }, async () => {
    // 3 s: shorter would leave PostgreSQL's pool too little time to connect (a sixth of it) on a loaded machine.
    const server = await startTestServer({ SVC_REQUEST_TIMEOUT_MS: '3000', SVC_HEADERS_TIMEOUT_MS: '3000' });
    try {
      const stream = await openStream(`${server.url}/api/events`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await createProduct(server.url, 'late');
      const [message] = await stream.waitFor(1);
      assert.equal(eventOf(message as StreamMessage).data.name, 'late');
      stream.close();
    } finally {
      await server.stop();
    }
  });

  test('each open stream is one connection SVC_MAX_CONNECTIONS counts', async () => {
    // SVC_MAX_STREAMS is below SVC_MAX_CONNECTIONS: the other connection is an idle keep-alive one.
    const server = await startTestServer({ SVC_MAX_CONNECTIONS: '2', SVC_MAX_STREAMS: '1' });
    try {
      const stream = await openStream(`${server.url}/api/events`);
      const idle = await rawConnect(server.url);
      idle.socket.write('GET /api/ping HTTP/1.1\r\nHost: localhost\r\n\r\n');
      assert.equal((await idle.next()).status, 200);
      await assert.rejects(fetch(`${server.url}/api/ping`));
      stream.close();
      await stream.ended;
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await fetch(`${server.url}/api/ping`, { headers: { connection: 'close' } })).status, 200);
      idle.socket.destroy();
    } finally {
      await server.stop();
    }
  });

  test('graceful shutdown with 100 open streams: each ends cleanly, well within SVC_SHUTDOWN_TIMEOUT_MS', { timeout: 60_000 }, async () => {
    const server = await startTestServer({ SVC_SHUTDOWN_TIMEOUT_MS: '20000' });
    // A hundred callers: addresses of their own (one may hold SVC_STREAMS_PER_CALLER).
    const streams = await Promise.all(Array.from({ length: 100 }, (_, i) => openStream(`${server.url}/api/events`, {}, { localAddress: `127.0.1.${i + 1}` })));
    assert.deepEqual(new Set(streams.map((stream) => stream.status)), new Set([200]));
    await createProduct(server.url, 'seen by all');
    await Promise.all(streams.map((stream) => stream.waitFor(1, 20_000)));
    const started = Date.now();
    await server.stop();
    const ends = await Promise.all(streams.map((stream) => stream.ended));
    assert.ok(Date.now() - started < 10_000, `stopped in ${Date.now() - started} ms`);
    assert.deepEqual(new Set(ends.map((end) => end.clean)), new Set([true]), 'every response finished (its last chunk came)');
  });

  test('a reader that never reads is cut off once 1 MiB waits for it, and its place is free again; one that reads gets every event', { timeout: 120_000 }, async () => {
    // The reader and the stalled one are one caller (one address), which may hold two streams.
    const server = await startTestServer({ SVC_STREAMS_PER_CALLER: '2' });
    try {
      await createProduct(server.url, '€'.repeat(200));
      const reader = await openStream(`${server.url}/api/events`, { 'x-request-id': 'reader' });
      // The stalled reader: it sends its request and never reads a byte.
      const url = new URL(server.url);
      const stalled = connect(Number(url.port), url.hostname);
      stalled.pause();
      stalled.write('GET /api/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nX-Request-Id: stalled\r\n\r\n');
      await reader.waitForComments(1, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Ten thousand copies of that event (about 7 MB of messages), recorded behind the service's back; a write wakes the streams.
      await server.database.sql(
        'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) INSERT INTO events (type, created_at, data) SELECT e.type, e.created_at, e.data FROM events e, n',
      );
      await createProduct(server.url, 'wake up');
      await reader.waitFor(10_001, 90_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; the reader's stream ended: ${server.logs.some((line) => line['reqId'] === 'reader')} ${JSON.stringify(server.logs.filter((line) => (line['level'] as number) > 30))}`);
      });
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !server.logs.some((line) => line['reqId'] === 'stalled')) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(server.logs.some((line) => line['reqId'] === 'stalled'), 'the stalled stream ended');
      const next = await openStream(`${server.url}/api/events`);
      assert.equal(next.status, 200, 'the place the stalled stream held is free');
      next.close();
      reader.close();
      stalled.destroy();
    } finally {
      await server.stop();
    }
  });
});
