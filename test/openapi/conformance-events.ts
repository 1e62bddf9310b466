import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConformanceRun, itemsOf } from './conformance-run.ts';

// The event feed (docs/events.md): a page, HEAD, 304, every 400 and the 410 of an event past retention.
const PATH = '/api/events';

// An event recorded long ago, written behind the service's back: it is past any retention, so the
// feed must refuse an `after` that would need it. Written last, after every other feed request.
const EXPIRED_EVENT =
  "INSERT INTO events (type, created_at, data) VALUES (4, '2000-01-01T00:00:00.000Z', '[1,\"old\",\"2000-01-01T00:00:00.000Z\",\"2000-01-01T00:00:00.000Z\",1]')";

/** Registers the tests of the feed's successes and client errors. */
export function eventFeedTests(run: ConformanceRun): void {
  test('/api/events: a page, the next one, HEAD, 304, every 400 and the 410 conform', async () => {
    await run.expectStatus('POST', '/api/workspaces', run.post('/api/workspaces', { name: 'followed' }), 201);
    const first = await run.get(`${PATH}?limit=1`);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    const etag = first.headers.get('etag') ?? '';
    const [event] = itemsOf(await run.expectStatus('GET', PATH, first, 200));
    assert.ok(link !== undefined && event !== undefined);
    await run.expectStatus('GET', PATH, run.get(link), 200);
    await run.expectStatus('GET', PATH, run.get(`${PATH}?type=workspace.created,product.deleted`), 200);
    await run.expectStatus('HEAD', PATH, run.get(`${PATH}?limit=1`, { method: 'HEAD' }), 200);
    await run.expectStatus('GET', PATH, run.get(`${PATH}?limit=1`, { headers: { 'if-none-match': etag } }), 304);
    await run.expectStatus('HEAD', PATH, run.get(`${PATH}?limit=1`, { method: 'HEAD', headers: { 'if-none-match': etag } }), 304);
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'after=bad!', 'after=', 'type=product.moved']) {
      await run.expectStatus('GET', PATH, run.get(`${PATH}?${query}`), 400);
    }
    const newest = itemsOf(await (await run.get(`${PATH}?limit=200`)).json()) as { id: string }[];
    // The live stream's own header, checked before any stream starts: malformed, and well-formed but
    // never issued (the newest id with a digit more names an event after every one recorded).
    for (const lastEventId of ['bad!', `${newest.at(-1)?.id}9`]) {
      const refused = await run.expectStatus('GET', PATH, run.get(PATH, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId } }), 400);
      assert.equal(refused['code'], 'invalid_header');
    }
    await run.server.database.sql(EXPIRED_EVENT);
    // Follow until the expired event is next: on PostgreSQL, events (this one too) become visible
    // once every transaction begun before them has ended.
    let after = newest.at(-1)?.id ?? '';
    for (let tries = 0; ; tries++) {
      const response = await run.get(`${PATH}?after=${after}&limit=200`);
      if (response.status === 410) {
        assert.equal((await run.expectStatus('GET', PATH, response, 410))['code'], 'events_expired');
        break;
      }
      const events = itemsOf(await response.json()) as { id: string }[];
      after = events.at(-1)?.id ?? after;
      assert.ok(tries < 500, 'the expired event became the next one');
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
}
