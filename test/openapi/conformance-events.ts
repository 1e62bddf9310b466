import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { columnValue } from '../../src/resources/rows.ts';
import { validBody } from '../support/resources.ts';
import { validate } from '../support/schema.ts';
import { type ConformanceRun, itemsOf } from './conformance-run.ts';

// The event feed (docs/events.md): a page, HEAD, 304, every 400 and the 410 of an event past retention;
// and an event of every type the document names, each one's data the representation of its own resource.
type Json = Record<string, unknown>;
const PATH = '/api/events';
const LONG_AGO = '2000-01-01T00:00:00.000Z';

// An event of `resource` recorded long ago, written behind the service's back: it is past any retention,
// so the feed must refuse an `after` that would need it. Its row is in the order of the resource's columns.
function expiredEvent(resource: Resource): string {
  const body = validBody(resource);
  const row = resource.columns.map((column) => ({ id: 1, time: LONG_AGO, version: 1 } as Record<string, unknown>)[column.type] ?? columnValue(column, body));
  return `INSERT INTO events (type, created_at, data) VALUES (${resource.events.created}, '${LONG_AGO}', '${JSON.stringify(row).replaceAll("'", "''")}')`;
}

// Pages through the whole feed from its start, each page checked; answers the events and the id of the last.
async function followAll(run: ConformanceRun): Promise<{ events: Json[]; last: string }> {
  const events: Json[] = [];
  for (let after = ''; ;) {
    const page = itemsOf(await run.expectStatus('GET', PATH, run.get(`${PATH}?limit=200${after === '' ? '' : `&after=${after}`}`), 200));
    if (page.length === 0) return { events, last: after };
    events.push(...page);
    after = String(page.at(-1)?.['id']);
  }
}

/** Registers the tests of the feed's successes and client errors. */
export function eventFeedTests(run: ConformanceRun): void {
  const [sample] = run.resources;
  assert.ok(sample !== undefined);
  const typeNames = (): string[] => ((run.document['components'] as Json)['schemas'] as Record<string, { enum: string[] }>)['EventType']?.enum ?? [];

  test('/api/events: every event type the document names was met, and its data is a representation of its own resource', async () => {
    // The tests before this one created, changed and deleted every resource the run serves. On
    // PostgreSQL an event is visible once every transaction begun before it has ended: read again until then.
    const typesOf = (events: readonly Json[]): string[] => [...new Set(events.map((event) => String(event['type'])))].sort();
    let { events } = await followAll(run);
    for (const deadline = Date.now() + 10_000; typesOf(events).length < typeNames().length && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ({ events } = await followAll(run));
    }
    assert.deepEqual(typesOf(events), [...typeNames()].sort());
    for (const event of events) {
      const type = String(event['type']);
      const resource = run.resources.find((candidate) => type.startsWith(`${candidate.singular}.`));
      assert.ok(resource !== undefined, type);
      assert.deepEqual(validate(event['data'], { $ref: `#/components/schemas/${resource.title}` }, run.document), [], `${type} ${JSON.stringify(event['data'])}`);
    }
  });

  test('/api/events: a page, the next one, HEAD, 304, every 400 and the 410 conform', async () => {
    await run.expectStatus('POST', sample.path, run.post(sample.path, validBody(sample, 0, run.version)), 201);
    const first = await run.get(`${PATH}?limit=1`);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    const etag = first.headers.get('etag') ?? '';
    const [event] = itemsOf(await run.expectStatus('GET', PATH, first, 200));
    assert.ok(link !== undefined && event !== undefined);
    await run.expectStatus('GET', PATH, run.get(link), 200);
    await run.expectStatus('GET', PATH, run.get(`${PATH}?type=${typeNames().join(',')}`), 200);
    await run.expectStatus('HEAD', PATH, run.get(`${PATH}?limit=1`, { method: 'HEAD' }), 200);
    await run.expectStatus('GET', PATH, run.get(`${PATH}?limit=1`, { headers: { 'if-none-match': etag } }), 304);
    await run.expectStatus('HEAD', PATH, run.get(`${PATH}?limit=1`, { method: 'HEAD', headers: { 'if-none-match': etag } }), 304);
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'after=bad!', 'after=', `type=${sample.singular}.moved`]) {
      await run.expectStatus('GET', PATH, run.get(`${PATH}?${query}`), 400);
    }
    const { last } = await followAll(run);
    // The live stream's own header, checked before any stream starts: malformed, and well-formed but
    // never issued (the newest id with a digit more names an event after every one recorded).
    for (const lastEventId of ['bad!', `${last}9`]) {
      const refused = await run.expectStatus('GET', PATH, run.get(PATH, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId } }), 400);
      assert.equal(refused['code'], 'invalid_header');
    }
    await run.server.database.sql(expiredEvent(sample));
    // Follow until the expired event is next: on PostgreSQL, events (this one too) become visible
    // once every transaction begun before them has ended.
    let after = last;
    for (let tries = 0; ; tries++) {
      const response = await run.get(`${PATH}?after=${after}&limit=200`);
      if (response.status === 410) {
        assert.equal((await run.expectStatus('GET', PATH, response, 410))['code'], 'events_expired');
        break;
      }
      const events = itemsOf(await response.json());
      after = String(events.at(-1)?.['id'] ?? after);
      assert.ok(tries < 500, 'the expired event became the next one');
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
}
