import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { spawnServe } from '../ops/support.ts';
import { allowedChange } from '../support/change-samples.ts';
import { RESOURCES } from '../support/resources.ts';
import { type Answer, databaseOf, errorLines, migratedDatabase, type Nodes, patch, post, send } from './support.ts';

// The gap test (docs/events.md, the ordering argument): three bin/serve.js nodes on one database take
// a few hundred concurrent writes (most in multi-statement transactions, so a transaction that took
// its id early often commits after one that took a later id), while a follower pages through the
// feed with limit=5 on every node in turn. The follower must see every acknowledged change's event
// exactly once, and each resource's events in the order of its changes. A feed that lets a reader
// pass a place still to be filled (`id > after` on numbers taken at insert) loses events here. A fresh
// cluster's transaction ids start near 730, so the run crosses 1000: a feed ordered by the text of
// the ids (1000 before 999) skips events too. To make such a place certain, another session of the
// database now and then holds the idempotency table in SHARE mode for a moment (as a backup tool
// might): keyed creates then wait between recording their event and committing, while changes and
// deletes, which record later events, commit.
const WRITERS = 24;
const ROUNDS = 5;
// Followers, each starting on another node: each must see everything.
const FOLLOWERS = 3;

interface WireEvent {
  id: string;
  type: string;
  data: { id: number };
}

// One follower's checks: exactly once, every acknowledged change, each resource in order; its ids.
function checkFollower(seen: readonly WireEvent[], expected: readonly string[], polls: number): string[] {
  const ids = seen.map((event) => event.id);
  assert.equal(new Set(ids).size, ids.length, 'no event is seen twice');
  const got = seen.map((event) => `${event.type} ${event.data.id}`);
  const missing = expected.filter((key) => !got.includes(key));
  assert.deepEqual(missing, [], `${missing.length} of ${expected.length} events never reached a follower (${polls} polls)`);
  assert.equal(got.length, expected.length, 'nothing but the acknowledged changes recorded an event');
  const resourceOf = (key: string): string => key.replace(/\.(created|updated|deleted)/, '');
  for (const resource of new Set(got.map(resourceOf))) {
    const order = got.filter((key) => resourceOf(key) === resource).map((key) => key.split(' ')[0]?.split('.')[1]);
    assert.deepEqual(order, ['created', 'updated', 'deleted'].slice(0, order.length), `${resource}: in the order of its changes`);
  }
  return ids;
}

describe('the event feed on three nodes of one PostgreSQL database', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let nodes: Nodes;
  let url: string;
  before(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster);
    const servers = Array.from({ length: 3 }, () => spawnServe({ SVC_DATABASE_URL: url, SVC_DB_POOL_SIZE: '8' }));
    nodes = { servers, urls: [], kill: () => servers.forEach((server) => server.kill()) };
    // A loaded machine may take long to start three processes: a generous wait for each one's line.
    nodes.urls = await Promise.all(servers.map(async (server) => (await server.waitForLine((line) => typeof line['url'] === 'string', 60_000))['url'] as string));
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  const node = (i: number): string => nodes.urls[i % nodes.urls.length] as string;
  const ok = (answer: Answer, status: number): Record<string, unknown> => {
    assert.equal(answer.status, status, answer.body);
    return JSON.parse(answer.body === '' ? '{}' : answer.body) as Record<string, unknown>;
  };

  // One writer: a keyed create (a transaction of several statements), a change (a transaction
  // holding the row's lock), sometimes a delete; every acknowledged one expects its event.
  async function write(writer: number, expected: string[]): Promise<void> {
    for (let round = 0; round < ROUNDS; round++) {
      // Every resource the service serves, in turn: their events share one feed.
      const resource = RESOURCES[(writer + round) % RESOURCES.length] ?? assert.fail('a resource');
      const { singular, path } = resource;
      const { body, patch: change } = allowedChange(resource, writer * ROUNDS + round);
      const created = ok(await post(`${node(writer + round)}${path}`, body, { 'idempotency-key': `gap-${writer}-${round}` }), 201);
      const id = created['id'] as number;
      expected.push(`${singular}.created ${id}`);
      ok(await patch(`${node(writer + round + 1)}${path}/${id}`, change), 200);
      expected.push(`${singular}.updated ${id}`);
      if (round % 2 === 1) {
        ok(await send(`${node(writer + round + 2)}${path}/${id}`, { method: 'DELETE' }), 204);
        expected.push(`${singular}.deleted ${id}`);
      }
    }
  }

  // While `going()`: hold the idempotency table for 150 ms, let go for 100 ms, again.
  async function stallKeyedCreates(going: () => boolean): Promise<void> {
    while (going()) {
      await cluster.sql(['BEGIN', 'LOCK TABLE idempotency_keys IN SHARE MODE', 'SELECT pg_sleep(0.15)', 'COMMIT'], databaseOf(url));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('followers paging with limit=5 see every event exactly once, each resource in the order of its changes', { timeout: 240_000 }, async () => {
    const expected: string[] = [];
    let writing = true;
    let polls = 0;
    const follow = async (first: number, seen: WireEvent[]): Promise<void> => {
      let next = '/api/events?limit=5';
      const deadline = () => performance.now() > finishedAt + 60_000;
      let finishedAt = Infinity;
      while (writing || seen.length < expected.length) {
        if (!writing && finishedAt === Infinity) finishedAt = performance.now();
        if (deadline()) return;
        const page = await send(`${node(first + polls++)}${next}`);
        assert.equal(page.status, 200, page.body);
        const events = JSON.parse(page.body) as WireEvent[];
        seen.push(...events);
        next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] ?? assert.fail('a next link');
        if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    const followers = Array.from({ length: FOLLOWERS }, (): WireEvent[] => []);
    const following = Promise.all(followers.map((seen, first) => follow(first, seen)));
    const stalling = stallKeyedCreates(() => writing);
    await Promise.all(Array.from({ length: WRITERS }, (_, writer) => write(writer, expected)));
    writing = false;
    await Promise.all([following, stalling]);
    const ids = checkFollower(followers[0] ?? [], expected, polls);
    for (const seen of followers.slice(1)) assert.deepEqual(checkFollower(seen, expected, polls), ids, 'every follower sees the same order');

    // One order for every reader: a second follower from the start reads the same sequence.
    const again: string[] = [];
    for (let next = '/api/events?limit=200'; ; ) {
      const page = await send(`${node(again.length)}${next}`);
      const events = JSON.parse(page.body) as WireEvent[];
      if (events.length === 0) break;
      again.push(...events.map((event) => event.id));
      next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] ?? '';
    }
    assert.deepEqual(again, ids, 'every reader sees the same order');
    assert.deepEqual(errorLines(nodes.servers), []);
  });
});
