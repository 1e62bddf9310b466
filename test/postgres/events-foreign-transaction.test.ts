import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgres } from '../../src/postgres/open.ts';
import { openStream } from '../support/event-stream.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { RESOURCES, validBody } from '../support/resources.ts';
import { databaseOf, migratedDatabase, type Nodes, post, send, startNodes, waitUntil } from './support.ts';

// Contract §16: an event committed by any process reaches every open stream within 1 s, and the feed
// too, whatever runs beside the service. Here a transaction of another database of the same cluster
// (a batch job, a forgotten BEGIN in psql) stays open for 4 s, having written, while a resource (one
// sample: any would do) is created: the service's event must not wait for it (it did while the feed
// showed only events below the cluster-wide pg_snapshot_xmin).
const CONTRACT_MS = 1_000;
const SAMPLE = RESOURCES[0] ?? assert.fail('a resource');

describe('a foreign transaction on the same PostgreSQL cluster', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let nodes: Nodes;
  let url: string;
  let elsewhere: string;
  let elsewhereUrl: string;
  before(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster);
    elsewhereUrl = await cluster.createDatabase();
    elsewhere = databaseOf(elsewhereUrl);
    await cluster.sql('CREATE TABLE batch (n int)', elsewhere);
    nodes = await startNodes(url, 1);
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  // Opens a write transaction in the other database that lasts `seconds`; resolves once it holds a
  // transaction id, with its end (wrapped: an async function would wait for a promise it returns).
  async function foreignTransaction(seconds: number): Promise<{ ended: Promise<string> }> {
    const running = cluster.sql(['BEGIN', 'INSERT INTO batch VALUES (1)', `SELECT pg_sleep(${seconds})`, 'COMMIT'], elsewhere);
    const open = `SELECT count(*) FROM pg_stat_activity WHERE datname = '${elsewhere}' AND backend_xid IS NOT NULL`;
    await waitUntil('the foreign transaction holds an id', async () => (await cluster.sql(open, 'postgres')) === '1');
    return { ended: running };
  }

  test('an event created while it is open reaches an open stream and the feed within 1 s', { timeout: 60_000 }, async () => {
    const base = nodes.urls[0] as string;
    const stream = await openStream(`${base}/api/events`, { connection: 'close' });
    assert.equal(stream.status, 200);
    const running = await foreignTransaction(4);
    const created = await post(`${base}${SAMPLE.path}`, validBody(SAMPLE, 1));
    assert.equal(created.status, 201, created.body);
    const committedAt = performance.now();
    const id = (JSON.parse(created.body) as { id: number }).id;

    const [message] = await stream.waitFor(1, 10_000);
    const streamedMs = performance.now() - committedAt;
    assert.equal((JSON.parse(message?.data ?? '{}') as { data: { id: number } }).data.id, id);
    let feedMs = Infinity;
    await waitUntil('the feed shows the event', async () => {
      const page = JSON.parse((await send(`${base}/api/events`)).body) as { data: { id: number } }[];
      feedMs = performance.now() - committedAt;
      return page.some((event) => event.data.id === id);
    }, 10_000, 10);
    const stillOpen = await cluster.sql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${elsewhere}' AND backend_xid IS NOT NULL`, 'postgres');
    stream.close();
    await running.ended;
    assert.equal(stillOpen, '1', `the foreign transaction was still open when the event was seen (stream ${Math.round(streamedMs)} ms, feed ${Math.round(feedMs)} ms)`);
    assert.ok(streamedMs < CONTRACT_MS, `the stream got the event ${Math.round(streamedMs)} ms after its commit`);
    assert.ok(feedMs < CONTRACT_MS, `the feed showed the event ${Math.round(feedMs)} ms after its commit`);
  });

  test('a session idle in transaction elsewhere holds nothing back either', { timeout: 60_000 }, async () => {
    const base = nodes.urls[0] as string;
    const stream = await openStream(`${base}/api/events`, { connection: 'close' });
    // An application's transaction that wrote and then waits on something else (its connection idle in transaction).
    const foreign = openPostgres(elsewhereUrl, { poolSize: 1 });
    await cluster.sql('GRANT ALL ON batch TO PUBLIC', elsewhere);
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote = (): void => {};
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const transaction = foreign.transaction(async (tx) => {
      await tx.run('INSERT INTO batch VALUES (2)');
      wrote();
      await held;
    });
    try {
      await written;
      const created = await post(`${base}${SAMPLE.path}`, validBody(SAMPLE, 2));
      assert.equal(created.status, 201, created.body);
      const committedAt = performance.now();
      await stream.waitFor(1, 10_000);
      const streamedMs = performance.now() - committedAt;
      const idle = await cluster.sql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${elsewhere}' AND state = 'idle in transaction'`, 'postgres');
      assert.equal(idle, '1', 'the foreign session was idle in transaction when the event came');
      assert.ok(streamedMs < CONTRACT_MS, `the stream got the event ${Math.round(streamedMs)} ms after its commit`);
    } finally {
      release();
      await transaction;
      await foreign.end();
      stream.close();
    }
  });
});
