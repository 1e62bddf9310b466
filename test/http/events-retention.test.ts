import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
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
