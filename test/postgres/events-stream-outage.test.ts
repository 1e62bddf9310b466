import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { openStream } from '../support/event-stream.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { migratedDatabase, type Nodes, post, startNodes } from './support.ts';

// Live streams on two nodes while PostgreSQL stops and starts again: each stream either goes on by
// itself (the listener reconnects, the feed reads again) or ends cleanly, and a client that
// reconnects with its last id sees every event exactly once, in the feed's order, without a restart.
const ENV = { SVC_REQUEST_TIMEOUT_MS: '6000', SVC_HEADERS_TIMEOUT_MS: '5000' };

interface Follower {
  ids: string[];
  reconnections: number;
  stop(): Promise<void>;
}

// A client as EventSource is: it reads, and when the stream ends (or cannot open) it opens it again
// with Last-Event-ID, after a short wait.
function follow(base: string): Follower {
  const ids: string[] = [];
  let stopped = false;
  let reconnections = -1;
  let current: { close(): void } | null = null;
  const loop = (async () => {
    while (!stopped) {
      reconnections += 1;
      const last = ids.at(-1);
      try {
        const stream = await openStream(`${base}/api/events`, last === undefined ? {} : { 'last-event-id': last });
        if (stream.status !== 200) throw new Error(`status ${stream.status}`);
        current = stream;
        let seen = 0;
        const copy = setInterval(() => {
          for (; seen < stream.messages.length; seen++) ids.push(stream.messages[seen]?.id as string);
        }, 5);
        await stream.ended;
        clearInterval(copy);
        for (; seen < stream.messages.length; seen++) ids.push(stream.messages[seen]?.id as string);
      } catch {
        // Refused or unreachable: try again, as a browser would.
      }
      if (!stopped) await sleep(250);
    }
  })();
  return {
    ids,
    get reconnections() {
      return reconnections;
    },
    async stop() {
      stopped = true;
      current?.close();
      await loop;
    },
  };
}

async function createUntilAcknowledged(base: string, name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await post(`${base}/api/products`, { name, priceInCents: 1 }, {}, 10_000)).status === 201) return;
    await sleep(100);
  }
  throw new Error(`${name} was never acknowledged`);
}

describe('live streams through a PostgreSQL outage', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let nodes: Nodes;
  before(async () => {
    cluster = await startPostgres();
    nodes = await startNodes(await migratedDatabase(cluster), 2, ENV);
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  test('stopped, then started: streams resume or end cleanly; a client that reconnects with its last id misses nothing and sees nothing twice', { timeout: 180_000 }, async () => {
    const base = nodes.urls[0] as string;
    await createUntilAcknowledged(base, 'first');
    const followers = nodes.urls.flatMap((url) => [follow(url), follow(url)]);
    await sleep(1_000);
    for (let i = 0; i < 4; i++) await createUntilAcknowledged(nodes.urls[i % 2] as string, `before ${i}`);
    await cluster.stopServer('fast');
    await sleep(3_000);
    await cluster.startServer();
    for (let i = 0; i < 6; i++) await createUntilAcknowledged(nodes.urls[i % 2] as string, `after ${i}`);
    // Every event, read from the feed page by page once it shows the last one (the sequencer, back
    // from the outage too, has positioned them), once the followers have had time to see them.
    let feed: string[] = [];
    for (let last = ''; last !== 'after 5'; ) {
      feed = [];
      for (let after = ''; ; ) {
        const answer = await fetch(`${base}/api/events?limit=200${after}`);
        const page = (await answer.json()) as { id: string; data: { name: string } }[];
        if (page.length === 0) break;
        feed.push(...page.map((event) => event.id));
        last = page.at(-1)?.data.name ?? '';
        after = `&after=${page.at(-1)?.id}`;
      }
      if (last !== 'after 5') await sleep(50);
    }
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && followers.some((follower) => follower.ids.length < feed.length - 1)) await sleep(100);
    for (const follower of followers) await follower.stop();
    for (const follower of followers) {
      // A follower starts with what is recorded from its first connection on: the feed after 'first'.
      const expected = feed.slice(feed.length - follower.ids.length);
      assert.deepEqual(follower.ids, expected, `reconnected ${follower.reconnections} times`);
      assert.ok(follower.ids.length >= 10, `saw ${follower.ids.length} events`);
    }
    // The same processes served throughout.
    for (const server of nodes.servers) assert.equal(server.child.exitCode ?? server.child.signalCode, null);
  });
});
