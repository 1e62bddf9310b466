import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { LiveFeed, READ_SPACING_MS, type Subscriber } from '../../src/events/live-feed.ts';
import { eventCatalogue } from '../../src/events/catalogue.ts';
import type { StoredEvent } from '../../src/events/model.ts';
import type { EventRepository } from '../../src/events/repository.ts';
import { liveStreamHandler } from '../../src/events/stream-handler.ts';
import type { RequestContext } from '../../src/http/reply.ts';
import { VERSIONS } from '../../src/registry.ts';
import { buildVersions } from '../../src/versions/api-versions.ts';
import { GADGETS } from '../support/resources.ts';

// The events of the test resource: any resource's go the same way, in any version.
const catalogue = eventCatalogue([GADGETS]);
const version = buildVersions(VERSIONS, [GADGETS], { at: new Map(), announcedAt: 0 }).newest;

// The process's one reader of new events (src/events/live-feed.ts) against an event log in memory,
// so each moment of a stream's life can be placed exactly: the HTTP tests cannot time these.

function memoryLog(): { events: EventRepository; record(): string; heads: () => number } {
  const stored: StoredEvent[] = [];
  let heads = 0;
  const events: EventRepository = {
    async readAfter(after, limit) {
      const from = after === null ? 0 : stored.findIndex((event) => event.id === after) + 1;
      if (after !== null && from === 0) return { kind: 'unknown' };
      return { kind: 'events', events: stored.slice(from, from + limit) };
    },
    async head() {
      heads += 1;
      return stored.at(-1)?.id ?? null;
    },
    deleteExpired: async () => 0,
    isExpired: async () => false,
  };
  const record = (): string => {
    const id = String(stored.length + 1);
    stored.push({ id, type: GADGETS.events.created, createdAt: '2026-11-26T00:00:00.000Z', row: [stored.length + 1, 100, 5, `g${id}`, 1, 'c', 'u', 1] });
    return id;
  };
  return { events, record, heads: () => heads };
}

function collector(): Subscriber & { ids(): string[] } {
  let text = '';
  return {
    types: null,
    version,
    send: (messages) => void (text += messages),
    lost: () => {},
    ids: () => [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string),
  };
}

test('a read under way when the last stream ends sets no place: the next stream reads the head again', async () => {
  const log = memoryLog();
  let wake = (): void => {};
  const feed = new LiveFeed({ events: log.events, catalogue, listen: (signal) => ((wake = signal), () => (wake = () => {})) });
  log.record();
  log.record();
  await feed.use();
  wake(); // a commit's signal: a read begins READ_SPACING_MS later
  feed.release(null); // the stream's reader went away before that
  await sleep(READ_SPACING_MS * 3);
  // Committed while no stream was open: no one listens, nothing reads them.
  log.record();
  log.record();
  await feed.use();
  assert.equal(await feed.place(), '4', 'the place is the newest event, read again');
  const resumed = collector();
  assert.equal(feed.joinAfter('2', resumed), false, 'a stream after event 2 must read 3 and 4 itself: the feed never held them');
  feed.release(null);
});

test('a stream joining after an event the feed holds gets the events after it, then every new one', async () => {
  const log = memoryLog();
  let wake = (): void => {};
  const feed = new LiveFeed({ events: log.events, catalogue, listen: (signal) => ((wake = signal), () => (wake = () => {})) });
  log.record();
  await feed.use();
  const early = collector();
  assert.equal(feed.joinAfter('1', early), true);
  log.record();
  log.record();
  wake();
  await feed.nextRead();
  assert.deepEqual(early.ids(), ['2', '3']);
  const late = collector();
  assert.equal(feed.joinAfter('2', late), true);
  assert.deepEqual(late.ids(), ['3'], 'what it missed, from memory');
  log.record();
  wake();
  await feed.nextRead();
  assert.deepEqual([early.ids(), late.ids()], [['2', '3', '4'], ['3', '4']]);
  feed.release(early);
  feed.release(late);
});

test('place(): the running feed\'s own place without a read; while stopped, one read of the head shared by the streams opening at once', async () => {
  const log = memoryLog();
  const feed = new LiveFeed({ events: log.events, catalogue, listen: () => () => {} });
  assert.equal(await feed.place(), null, 'nothing recorded yet');
  log.record();
  const before = log.heads();
  const places = await Promise.all(Array.from({ length: 50 }, () => feed.place()));
  assert.deepEqual(new Set(places), new Set(['1']));
  assert.equal(log.heads() - before, 1, 'one read for fifty streams');
  await feed.use();
  const running = log.heads();
  log.record();
  assert.equal(await feed.place(), '1', 'the feed has not read event 2 yet: a stream placed here will get it');
  assert.equal(log.heads(), running, 'no read while the feed runs');
  feed.release(null);
});

test('a stream "from now on" is placed before its head is sent: a change made once the head is out is always sent', async () => {
  const log = memoryLog();
  let wake = (): void => {};
  const feed = new LiveFeed({ events: log.events, catalogue, listen: (signal) => ((wake = signal), () => (wake = () => {})) });
  log.record();
  const handler = liveStreamHandler({ feed, events: log.events, typesOf: () => null });
  const ctx = { req: { headers: {} }, query: new URLSearchParams(), caller: null, version } as unknown as RequestContext;
  const reply = await handler(ctx);
  // The head goes out now; the client, seeing it, makes a change before the body starts.
  const made = log.record();
  let text = '';
  const sink = { write: (chunk: string) => ((text += chunk), true), end: () => {}, ended: false, drained: async () => {} };
  const stop = reply.stream?.start(sink);
  wake();
  for (let i = 0; i < 100 && !text.includes(`id: ${made}\n`); i++) await sleep(10);
  stop?.();
  assert.match(text, new RegExp(`id: ${made}\\n`), 'the change made after the head is sent');
  assert.doesNotMatch(text, /id: 1\n/, 'nothing from before the request');
});
