import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StorageBusyError } from '../../src/db/errors.ts';
import type { PostgresClient } from '../../src/postgres/client.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { createPostgresStorage } from '../../src/postgres/storage.ts';
import type { Repositories, Storage } from '../../src/db/storage.ts';
import { createPostgresResourceRepository } from '../../src/postgres/resources.ts';
import { products as PRODUCTS } from '../../src/products/resource.ts';
import type { NewRow, ResourceRepository } from '../../src/resources/repository.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import { repository, toNewest } from '../support/resources.ts';
import { PRODUCT } from '../ops/support.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { type Answer, databaseOf, errorLines, migratedDatabase, type Nodes, patch, post, rowsOf, send, startNodes } from './support.ts';

// Real conflicts on a real server, no mock: a row changed under a REPEATABLE READ snapshot (40001),
// two transactions locking two rows in opposite orders (40P01), SERIALIZABLE PATCHes racing from two
// nodes. PostgreSQL aborts one transaction of each conflict; the service must run it again, a bounded
// number of times, and only then answer 503.
describe('transactions PostgreSQL aborts for a conflict are run again, a bounded number of times', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  const clients: PostgresClient[] = [];
  const started: Nodes[] = [];
  before(async () => {
    // Deadlocks are found after deadlock_timeout (1 s by default) of waiting.
    cluster = await startPostgres({ settings: { deadlock_timeout: "'100ms'" } });
  });
  after(async () => {
    started.forEach((nodes) => nodes.kill());
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await cluster?.stop();
  });

  /** A migrated database whose transactions run at `isolation`, and a client and storage on it. */
  async function database(isolation: 'read committed' | 'repeatable read' | 'serializable'): Promise<{ url: string; client: PostgresClient; other: PostgresClient }> {
    const url = await migratedDatabase(cluster);
    await cluster.sql(`ALTER DATABASE ${databaseOf(url)} SET default_transaction_isolation = '${isolation}'`, 'postgres');
    const client = openPostgres(url, { poolSize: 4 });
    // The other session, which commits its change between the statements of the one under test.
    const other = openPostgres(url, { poolSize: 2 });
    clients.push(client, other);
    return { url, client, other };
  }

  const at = '2026-11-23T10:00:00.000Z';
  const insert = (storage: Storage, name: string): Promise<AnyStored> =>
    storage.transaction((tx) => repository(tx, PRODUCTS).insert({ ...toNewest(PRODUCTS, PRODUCT), name, status: 1, createdAt: at, updatedAt: at } as NewRow));
  const bump = (other: PostgresClient, id: number): Promise<number> =>
    other.run('UPDATE products SET price_in_cents = price_in_cents + 1, version = version + 1 WHERE id = $1', [id]);
  const nameOf = async (client: PostgresClient, id: number): Promise<string> => String((await client.rows('SELECT name FROM products WHERE id = $1', [id]))[0]?.[0]);

  // A REPEATABLE READ work that reads the product, lets `interfere` change it, then writes it.
  function readThenWrite(id: number, interfere: (run: number) => Promise<unknown>): { runs: () => number; work: (tx: Repositories) => Promise<AnyStored> } {
    let runs = 0;
    return {
      runs: () => runs,
      work: async (tx) => {
        runs++;
        const seen = await repository(tx, PRODUCTS).findById(id);
        assert.ok(seen !== undefined);
        await interfere(runs);
        await repository(tx, PRODUCTS).update({ ...seen, name: `Written by run ${runs}`, version: seen.version + 1 });
        return seen;
      },
    };
  }

  test('40001: a write to a row changed since the snapshot is aborted, and runs again with a new snapshot', async () => {
    const { client, other } = await database('repeatable read');
    const storage = createPostgresStorage(client, { resources: [PRODUCTS] });
    const product = await insert(storage, 'Snapshot');
    // Once by hand, without the storage: PostgreSQL aborts it with 40001.
    await assert.rejects(
      client.transaction(async (tx) => {
        await tx.rows('SELECT name FROM products WHERE id = $1', [product.id]);
        await bump(other, product.id);
        await tx.run("UPDATE products SET name = 'lost' WHERE id = $1", [product.id]);
      }),
      { code: '40001' },
    );
    const attempt = readThenWrite(product.id, async (run) => run === 1 && bump(other, product.id));
    const seen = await storage.transaction(attempt.work);
    assert.equal(attempt.runs(), 2);
    assert.equal(seen.version, 3, 'the second run saw both committed bumps');
    const [row] = await client.rows('SELECT name, price_in_cents, version FROM products WHERE id = $1', [product.id]);
    assert.deepEqual(row, ['Written by run 2', PRODUCT.priceInCents + 2, 4]);
  });

  test('40P01: of two transactions that lock two rows in opposite orders one is aborted, runs again, and both commit', async () => {
    const { client } = await database('read committed');
    const storage = createPostgresStorage(client, { resources: [PRODUCTS] });
    const [left, right] = [await insert(storage, 'Left'), await insert(storage, 'Right')];
    // Each locks its first row, waits until the other holds its own, then asks for the other's row.
    // A run after an abort first waits for the other to commit: started at once, it may win the row the
    // abort freed before the woken survivor takes it, and PostgreSQL rightly finds a second deadlock.
    const lockBoth = (inTransaction: InTransaction, first: number, second: number, meet: () => Promise<void>, runs: number[], survivorDone: Promise<void>) =>
      inTransaction(async (products) => {
        const run = runs.push(first);
        if (run > 2) await survivorDone;
        await products.findForUpdate(first);
        // Only the first two runs wait for each other.
        if (run <= 2) await meet();
        const target = await products.findForUpdate(second);
        assert.ok(target !== undefined);
        await products.update({ ...target, name: `${target.name}, then ${first}`, version: target.version + 1 });
      });
    // By hand first, without the storage: PostgreSQL finds the deadlock and aborts one with 40P01.
    const byHand: InTransaction = (work) => client.transaction((tx) => work(createPostgresResourceRepository(tx, PRODUCTS)));
    const meetByHand = meeting(2);
    const outcomes = await Promise.allSettled([lockBoth(byHand, left.id, right.id, meetByHand, [], Promise.resolve()), lockBoth(byHand, right.id, left.id, meetByHand, [], Promise.resolve())]);
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
    assert.equal(failed.length, 1);
    assert.equal((failed[0]?.reason as { code?: string }).code, '40P01');

    const viaStorage: InTransaction = (work) => storage.transaction((tx) => work(repository(tx, PRODUCTS)));
    const [west, east] = [await insert(storage, 'West'), await insert(storage, 'East')];
    const runs: number[] = [];
    const meet = meeting(2);
    let survived = (): void => {};
    const survivorDone = new Promise<void>((resolve) => (survived = resolve));
    await Promise.all([lockBoth(viaStorage, west.id, east.id, meet, runs, survivorDone).then(survived), lockBoth(viaStorage, east.id, west.id, meet, runs, survivorDone).then(survived)]);
    assert.equal(runs.length, 3, 'one of them ran twice');
    assert.deepEqual([await nameOf(client, west.id), await nameOf(client, east.id)], [`West, then ${east.id}`, `East, then ${west.id}`]);
  });

  test('aborted at every run: after the bound (5 runs, or maxAttempts) StorageBusyError, and none of its writes remain', async () => {
    const { client, other } = await database('repeatable read');
    for (const [options, bound] of [[{}, 5], [{ maxAttempts: 2 }, 2]] as const) {
      const storage = createPostgresStorage(client, { ...options, resources: [PRODUCTS] });
      const product = await insert(storage, 'Always overtaken');
      const attempt = readThenWrite(product.id, () => bump(other, product.id));
      await assert.rejects(storage.transaction(attempt.work), StorageBusyError);
      assert.equal(attempt.runs(), bound);
      const [row] = await client.rows('SELECT name, version FROM products WHERE id = $1', [product.id]);
      assert.deepEqual(row, ['Always overtaken', 1 + bound], 'only the interfering bumps were committed');
    }
  });

  test('SERIALIZABLE: PATCHes racing from two nodes are aborted by PostgreSQL and retried: each 200 or 503 busy, never 500', async (t) => {
    const { url } = await database('serializable');
    const nodes = await startNodes(url, 2);
    started.push(nodes);
    const [a = '', b = ''] = nodes.urls;
    const abortsLogged = (): number => cluster.log().split('could not serialize access').length - 1;
    const abortsBefore = abortsLogged();
    let succeeded = 0;
    const location = (await post(`${a}/api/products`, { ...PRODUCT, name: 'Raced' })).headers.get('location') ?? '';
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => patch(`${i % 2 === 0 ? a : b}${location}`, { name: `Racer ${round}-${i}` })));
      for (const answer of answers) {
        if (answer.status === 200) succeeded++;
        else assertBusy(answer);
      }
    }
    // Without retries, every abort PostgreSQL logged would have been a 503: far fewer were.
    const aborts = abortsLogged() - abortsBefore;
    t.diagnostic(`${succeeded} of 24 PATCHes answered 200 after ${aborts} aborts`);
    assert.ok(aborts >= 1, 'PostgreSQL aborted at least one of the racing transactions');
    assert.ok(24 - succeeded < aborts, `${24 - succeeded} answers of 503 for ${aborts} aborts`);
    const current = JSON.parse((await send(`${b}${location}`)).body) as { name: string };
    assert.match(current.name, /^Racer \d-\d$/);
    assert.deepEqual(await rowsOf(cluster, url, `SELECT version FROM products WHERE id = ${Number(location.split('/').at(-1))}`), [[String(1 + succeeded)]]);
    assert.deepEqual(errorLines(nodes.servers).filter((line) => (line['res'] as { statusCode?: number } | undefined)?.statusCode !== 503), []);
  });

  test('over HTTP the bound is exact: aborted 4 times the 5th run answers 200, aborted 5 times 503 busy with Retry-After: 1 and nothing written', async () => {
    const { url } = await database('read committed');
    // Exactly deterministic aborts: a trigger that makes PostgreSQL abort the first N runs of an update
    // with the SQLSTATE a conflict gets. The sequence counts runs across rollbacks (nextval is not undone).
    await cluster.sql([
      'CREATE SEQUENCE runs',
      'CREATE TABLE plan (aborts integer NOT NULL, code text NOT NULL)',
      "INSERT INTO plan VALUES (0, '40001')",
      `CREATE FUNCTION abort_planned() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE p plan; BEGIN SELECT * INTO p FROM plan;
         IF nextval('runs') <= p.aborts THEN RAISE EXCEPTION 'planned conflict' USING ERRCODE = p.code; END IF;
         RETURN NEW; END $$`,
      'CREATE TRIGGER abort_planned BEFORE UPDATE ON products FOR EACH ROW EXECUTE FUNCTION abort_planned()',
      'GRANT USAGE, SELECT, UPDATE ON SEQUENCE runs TO svc',
      'GRANT SELECT ON plan TO svc',
    ], databaseOf(url));
    const nodes = await startNodes(url, 1);
    started.push(nodes);
    const base = nodes.urls[0] ?? '';
    const created = await post(`${base}/api/products`, { ...PRODUCT, name: 'Planned' });
    const location = created.headers.get('location') ?? '';
    const plan = async (aborts: number, code: string): Promise<void> => {
      await cluster.sql([`UPDATE plan SET aborts = ${aborts}, code = '${code}'`, 'ALTER SEQUENCE runs RESTART'], databaseOf(url));
    };
    const runs = async (): Promise<number> => Number((await rowsOf(cluster, url, 'SELECT last_value FROM runs'))[0]?.[0]);

    for (const code of ['40001', '40P01']) {
      await plan(5, code);
      const refused = await patch(`${base}${location}`, { name: `Never ${code}` });
      assertBusy(refused);
      assert.equal(await runs(), 5, 'five runs, no more');
      const unchanged = await send(`${base}${location}`);
      assert.equal(unchanged.body, created.body);
      assert.equal(unchanged.headers.get('etag'), created.headers.get('etag'));
    }
    await plan(4, '40001');
    const changed = await patch(`${base}${location}`, { name: 'Fifth time lucky' });
    assert.equal(changed.status, 200, changed.body);
    assert.equal(await runs(), 5);
    assert.equal((JSON.parse(changed.body) as { name: string }).name, 'Fifth time lucky');
  });
});

/** A 503 `unavailable` for a busy database: Retry-After 1, a problem document that names no SQL. */
function assertBusy(answer: Answer): void {
  assert.equal(answer.status, 503, answer.body);
  assert.equal(answer.headers.get('retry-after'), '1');
  const problem = JSON.parse(answer.body) as { code: string; detail: string };
  assert.equal(problem.code, 'unavailable');
  assert.doesNotMatch(answer.body, /serializ|deadlock|40001|40P01|planned|SELECT|UPDATE/i);
}

/** Runs a work on products in one transaction. */
type InTransaction = (work: (products: ResourceRepository) => Promise<void>) => Promise<void>;

/** A promise that `count` callers await; it resolves once all of them arrived. */
function meeting(count: number): () => Promise<void> {
  let arrived = 0;
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}
