import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgres } from '../../src/postgres/open.ts';
import { PRODUCT } from '../ops/support.ts';
import { allowedChange } from '../support/change-samples.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { RESOURCES } from '../support/resources.ts';
import { type Answer, errorLines, migratedDatabase, type Nodes, patch, post, productNames, rowsOf, send, startNodes, waitUntil } from './support.ts';

// Two separate bin/serve.js processes on one PostgreSQL database, as two machines behind a load
// balancer would be: what one writes the other reads (every resource the service serves), and the
// races between them have one outcome (products as the sample).
describe('two serve processes on one PostgreSQL database', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let nodes: Nodes;
  let a: string;
  let b: string;
  before(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster);
    nodes = await startNodes(url, 2);
    [a = '', b = ''] = nodes.urls;
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.body) as Record<string, unknown>;

  for (const resource of RESOURCES) {
    test(`${resource.plural}: a create on one node is read, listed, changed and deleted on the other`, async () => {
      const { body, patch: change } = allowedChange(resource);
      const created = await post(`${a}${resource.path}`, body);
      assert.equal(created.status, 201, created.body);
      const path = created.headers.get('location') ?? '';
      const read = await send(`${b}${path}`);
      assert.equal(read.status, 200);
      assert.equal(read.body, created.body);
      assert.equal(read.headers.get('etag'), created.headers.get('etag'));
      const listed = await send(`${b}${resource.path}`);
      assert.deepEqual((JSON.parse(listed.body) as unknown[])[0], json(created));

      const changed = await patch(`${b}${path}`, change, { 'if-match': created.headers.get('etag') ?? '' });
      assert.equal(changed.status, 200, changed.body);
      const reread = await send(`${a}${path}`);
      assert.equal(reread.body, changed.body);
      for (const [field, value] of Object.entries(change)) assert.deepEqual(json(reread)[field], value, field);
      assert.equal(reread.headers.get('etag'), changed.headers.get('etag'));
      assert.notEqual(changed.headers.get('etag'), created.headers.get('etag'));

      const deleted = await send(`${a}${path}`, { method: 'DELETE', headers: { 'if-match': changed.headers.get('etag') ?? '' } });
      assert.equal(deleted.status, 204);
      assert.equal((await send(`${b}${path}`)).status, 404);
    });
  }

  test('the same Idempotency-Key sent to both nodes at once creates one product, and both get its 201', async () => {
    for (let round = 0; round < 20; round++) {
      const name = `Keyed ${round}`;
      const answers = await Promise.all([a, b].map((node) => post(`${node}/api/products`, { ...PRODUCT, name }, { 'idempotency-key': `both-nodes-${round}` })));
      assert.deepEqual(answers.map((answer) => answer.status), [201, 201], answers[0]?.body);
      assert.equal(answers[0]?.body, answers[1]?.body);
      for (const header of ['location', 'etag']) {
        assert.ok(answers[0]?.headers.get(header));
        assert.equal(answers[0]?.headers.get(header), answers[1]?.headers.get(header));
      }
      // Whichever took the key's lock first created it; the other found its stored response.
      assert.deepEqual(answers.map((answer) => answer.headers.get('idempotent-replayed')).sort(), ['true', null].sort());
      assert.deepEqual(await rowsOf(cluster, url, `SELECT count(*) FROM products WHERE name = '${name}'`), [['1']]);
    }
  });

  test('a retry on the other node while the first request is still in its transaction waits for its commit, then replays it', async () => {
    // Deterministic: the test holds a SHARE lock on products, which conflicts with INSERT. The first
    // request takes the key's advisory lock, then blocks on its INSERT. The retry, sent only once the
    // first is seen blocked there, must then wait on the advisory lock; the test checks both waits in
    // pg_stat_activity before letting go.
    const holder = openPostgres(url, { poolSize: 1 });
    let letGo = (): void => {};
    const released = new Promise<void>((resolve) => (letGo = resolve));
    let locked = (): void => {};
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holding = holder.transaction(async (tx) => {
      await tx.script('LOCK TABLE products IN SHARE MODE');
      locked();
      await released;
    });
    try {
      await lockTaken;
      const body = { ...PRODUCT, name: 'Slow first' };
      const headers = { 'idempotency-key': 'slow-first' };
      const settled: string[] = [];
      const first = post(`${a}/api/products`, body, headers).finally(() => settled.push('first'));
      await waitUntil('the first request waits on its INSERT', () => waiting("wait_event = 'relation' AND query LIKE '%INSERT INTO products%'"));
      const retry = post(`${b}/api/products`, body, headers).finally(() => settled.push('retry'));
      await waitUntil('the retry waits on the key', () => waiting("wait_event = 'advisory' AND query LIKE '%pg_advisory_xact_lock%'"));
      assert.deepEqual(settled, [], 'neither answered while the first transaction was open');
      letGo();
      await holding;
      const [one, two] = await Promise.all([first, retry]);
      assert.equal(one.status, 201, one.body);
      assert.equal(one.headers.get('idempotent-replayed'), null);
      assert.equal(two.status, 201, two.body);
      assert.equal(two.headers.get('idempotent-replayed'), 'true');
      assert.equal(two.body, one.body);
      assert.equal(two.headers.get('location'), one.headers.get('location'));
      assert.equal(two.headers.get('etag'), one.headers.get('etag'));
      assert.deepEqual(await rowsOf(cluster, url, "SELECT count(*) FROM products WHERE name = 'Slow first'"), [['1']]);
    } finally {
      letGo();
      await holding.catch(() => {});
      await holder.end();
    }
  });

  async function waiting(condition: string): Promise<boolean> {
    const rows = await rowsOf(cluster, url, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND ${condition}`);
    return rows[0]?.[0] === '1';
  }

  test('ten PATCHes with the same If-Match split over both nodes: exactly one wins, the rest get 412', async () => {
    const created = await post(`${a}/api/products`, { ...PRODUCT, name: 'Contested' });
    const path = created.headers.get('location') ?? '';
    let etag = created.headers.get('etag') ?? '';
    for (let round = 1; round <= 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => patch(`${i % 2 === 0 ? a : b}${path}`, { name: `Round ${round} writer ${i}` }, { 'if-match': etag })),
      );
      const winners = answers.filter((answer) => answer.status === 200);
      assert.equal(winners.length, 1, answers.map((answer) => answer.status).join());
      assert.deepEqual(answers.filter((answer) => answer.status === 412).length, 9);
      const current = await send(`${b}${path}`);
      assert.equal(current.body, winners[0]?.body);
      assert.equal(current.headers.get('etag'), winners[0]?.headers.get('etag'));
      etag = current.headers.get('etag') ?? '';
    }
    assert.deepEqual(await rowsOf(cluster, url, `SELECT version FROM products WHERE id = ${Number(path.split('/').at(-1))}`), [['6']]);
  });

  test('an id is never handed out again, whichever node deletes the newest product and whichever creates next', async () => {
    const newest = json(await post(`${a}/api/products`, { ...PRODUCT, name: 'Newest' }));
    assert.equal((await send(`${b}/api/products/${newest['id']}`, { method: 'DELETE' })).status, 204);
    const onB = json(await post(`${b}/api/products`, { ...PRODUCT, name: 'After delete on B' }));
    const onA = json(await post(`${a}/api/products`, { ...PRODUCT, name: 'After delete on A' }));
    assert.ok(Number(onB['id']) > Number(newest['id']), `${onB['id']} > ${newest['id']}`);
    assert.ok(Number(onA['id']) > Number(onB['id']), `${onA['id']} > ${onB['id']}`);
    for (const node of [a, b]) assert.equal((await send(`${node}/api/products/${newest['id']}`)).status, 404);
  });

  test('concurrent creates from both nodes all succeed with distinct ids, and nothing is logged as an error', async () => {
    const before = await productNames(cluster, url);
    const answers = await Promise.all(
      [a, b].flatMap((node, n) => Array.from({ length: 40 }, (_, i) => post(`${node}/api/products`, { ...PRODUCT, name: `Concurrent ${n}-${i}` }))),
    );
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([201]));
    const ids = answers.map((answer) => Number(json(answer)['id']));
    assert.equal(new Set(ids).size, 80);
    const after = await productNames(cluster, url);
    assert.equal(after.size, before.size + 80);
    for (const answer of answers) assert.equal(after.get(Number(json(answer)['id'])), json(answer)['name']);
    assert.deepEqual(errorLines(nodes.servers), []);
  });
});
