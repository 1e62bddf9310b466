import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { startEventRetention } from '../../src/events/retention.ts';
import { assertProblem, eventually } from '../support/assertions.ts';
import { followUntil, readFeed } from '../support/events.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// The shortest retention there is, so expiry can be watched in a test.
let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_EVENTS_RETENTION: '10s' });
});
after(() => server.stop());

async function create(name: string): Promise<void> {
  assert.equal((await postJson(`${server.url}/api/workspaces`, { name })).status, 201);
}

test('past SVC_EVENTS_RETENTION an event is never served, an after that needs it is 410, and it is deleted within a minute', { timeout: 120_000 }, async () => {
  await create('first');
  await create('second');
  // On PostgreSQL an event shows once every transaction older than it has ended, in any database of
  // the cluster (other test files run beside this one): follow until both are there.
  const [first, second] = (await followUntil(server.url, '/api/events', (events) => events.length >= 2)).events;
  assert.ok(first !== undefined && second !== undefined);
  assert.deepEqual((await readFeed(server.url, `/api/events?after=${first.id}`)).events.map((event) => event.id), [second.id]);
  await sleep(Date.parse(second.createdAt) + 10_500 - Date.now());

  // Expired, deleted or not yet: never served.
  assert.deepEqual((await readFeed(server.url, '/api/events')).events, [], 'the feed starts after expired events');
  await assertProblem(await fetch(`${server.url}/api/events?after=${first.id}`), 410, 'events_expired', '/api/events');
  assert.deepEqual((await readFeed(server.url, `/api/events?after=${second.id}`)).events, [], 'nothing after the newest is needed');

  await eventually('expired events deleted by the serving process', async () => (await server.database.countRows('events')) === 0, 60_000, 250);
  await assertProblem(await fetch(`${server.url}/api/events?after=${first.id}`), 410, 'events_expired', '/api/events');
  assert.equal((await fetch(`${server.url}/api/events?after=${second.id}`)).status, 200, 'the newest deleted is where a follower may still stand');

  await create('third');
  const fresh = await followUntil(server.url, `/api/events?after=${second.id}`, (events) => events.length >= 1);
  assert.deepEqual(fresh.events.map((event) => event.data['name']), ['third']);
  assert.deepEqual((await readFeed(server.url, '/api/events')).events.map((event) => event.id), [fresh.events[0]?.id]);
});

// A second sweep, after the first one set the horizon: it must move the horizon on to the newest event
// it deleted, where a follower that had read everything stands.
test('a later sweep moves the horizon on: a follower at the newest event it deleted gets 200 [], one before it 410', { timeout: 120_000 }, async () => {
  await create('fourth');
  await create('fifth');
  const mine = (await followUntil(server.url, '/api/events', (events) => events.some((event) => event.data['name'] === 'fifth'))).events;
  const [fourth, fifth] = mine.filter((event) => ['fourth', 'fifth'].includes(String(event.data['name'])));
  assert.ok(fourth !== undefined && fifth !== undefined);
  await eventually('the second events deleted by a later sweep', async () => (await server.database.countRows('events')) === 0, 60_000, 250);
  const atNewest = await fetch(`${server.url}/api/events?after=${fifth.id}`);
  assert.equal(atNewest.status, 200, 'the newest deleted event is still where a follower may stand');
  assert.deepEqual(await atNewest.json(), []);
  await assertProblem(await fetch(`${server.url}/api/events?after=${fourth.id}`), 410, 'events_expired', '/api/events');
});

test('each sweep deletes only what is past retention: young events outlive sweep after sweep, the oldest goes once it is expired, and the page it left has a new ETag', { timeout: 120_000 }, async () => {
  const own = await startTestServer({ SVC_EVENTS_RETENTION: '10s' });
  // Sweeps driven by the test, beside the server's own (every 15 s or so).
  const sweeps = startEventRetention(own.app, { intervalMs: 3_600_000 });
  const sweepTimes = async (times: number): Promise<number> => {
    let deleted = 0;
    for (let i = 0; i < times; i++) deleted += await sweeps.sweep();
    return deleted;
  };
  const createIn = async (name: string): Promise<void> => {
    assert.equal((await postJson(`${own.url}/api/workspaces`, { name })).status, 201);
  };
  try {
    await createIn('old');
    const [old] = (await followUntil(own.url, '/api/events', (events) => events.length >= 1)).events;
    assert.ok(old !== undefined);
    await sleep(Date.parse(old.createdAt) + 6_000 - Date.now());
    await createIn('young');
    const [, young] = (await followUntil(own.url, '/api/events', (events) => events.length >= 2)).events;
    assert.ok(young !== undefined);
    assert.equal(await sweepTimes(5), 0, 'five sweeps while both are kept delete nothing');
    assert.equal(await own.database.countRows('events'), 2);
    const both = await readFeed(own.url, '/api/events');
    assert.deepEqual(both.events.map((event) => event.id), [old.id, young.id]);

    await sleep(Date.parse(old.createdAt) + 10_500 - Date.now());
    assert.ok(Date.now() < Date.parse(young.createdAt) + 9_000, 'the young one is still well inside retention');
    // Expired, deleted or not: the page is the young event alone, and its tag is not the page of two's.
    const shrunk = await fetch(`${own.url}/api/events`, { headers: { 'if-none-match': both.etag ?? '' } });
    assert.equal(shrunk.status, 200);
    assert.deepEqual(((await shrunk.json()) as { id: string }[]).map((event) => event.id), [young.id]);
    await eventually('the expired one deleted by a sweep', async () => {
      await sweepTimes(1);
      return (await own.database.countRows('events')) === 1;
    }, 30_000, 100);
    assert.equal(await sweepTimes(5), 0, 'five more sweeps leave the young one');
    assert.equal(await own.database.countRows('events'), 1);
    assert.ok(Date.now() < Date.parse(young.createdAt) + 10_000, 'and it was young all along');

    await sleep(Date.parse(young.createdAt) + 10_500 - Date.now());
    await eventually('the young one deleted once it expired', async () => {
      await sweepTimes(1);
      return (await own.database.countRows('events')) === 0;
    }, 30_000, 100);
    // The second sweep that deleted moved the horizon on: the newest deleted event is where a follower may stand.
    assert.deepEqual((await readFeed(own.url, `/api/events?after=${young.id}`)).events, []);
    assert.equal((await fetch(`${own.url}/api/events?after=${young.id}`)).status, 200);
    await assertProblem(await fetch(`${own.url}/api/events?after=${old.id}`), 410, 'events_expired', '/api/events');
  } finally {
    await sweeps.stop();
    await own.stop();
  }
});
