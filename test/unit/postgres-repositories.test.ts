import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PostgresClient, SqlRunner } from '../../src/postgres/client.ts';
import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { createPostgresStorage } from '../../src/postgres/storage.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { createPostgresProductRepository } from '../../src/postgres/products.ts';
import { createPostgresWorkspaceRepository } from '../../src/postgres/workspaces.ts';
import { createPostgresApiKeyRepository } from '../../src/postgres/keys.ts';
import { keyRepositoryContract } from '../support/key-repository-contract.ts';
import { repositoryContract } from '../support/repository-contract.ts';

// The same contract as SQLite's, on a real PostgreSQL: every test gets a database of its own.
describe('postgres', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  const clients: PostgresClient[] = [];
  before(async () => {
    cluster = await startPostgres();
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await cluster?.stop();
  });

  async function freshClient(): Promise<PostgresClient> {
    const client = openPostgres(await cluster.createDatabase(), { poolSize: 4 });
    clients.push(client);
    await migratePostgres(client);
    return client;
  }

  repositoryContract('postgres', async () => {
    const client = await freshClient();
    return { storage: createPostgresStorage(client), close: () => client.end() };
  });

  keyRepositoryContract('postgres', async () => {
    const client = await freshClient();
    return { storage: createPostgresStorage(client), close: () => client.end() };
  });

  test('postgres: every read, change and delete the repositories make is an index scan, never a sequential scan or a sort', async () => {
    const client = await freshClient();
    // Enough rows that the planner would choose a scan if no index served the query.
    await client.script(`INSERT INTO products (name, price_in_cents, status, created_at, updated_at)
      SELECT 'p' || i, i, 1 + (i % 2), now(), now() FROM generate_series(1, 20000) AS i;
      INSERT INTO workspaces (name, created_at, updated_at) SELECT 'w' || i, now(), now() FROM generate_series(1, 20000) AS i;
      INSERT INTO api_keys (id, name, scopes, digest, created_at) SELECT lpad(i::text, 12, '0'), 'k' || i, 'read', repeat('A', 43), now() FROM generate_series(1, 20000) AS i;
      ANALYZE products; ANALYZE workspaces; ANALYZE api_keys`);
    const seen: { sql: string; params: readonly unknown[] }[] = [];
    const recording: SqlRunner = {
      rows: (sql, params = []) => (seen.push({ sql, params }), client.rows(sql, params)),
      run: (sql, params = []) => (seen.push({ sql, params }), client.run(sql, params)),
      script: (sql) => client.script(sql),
    };
    const products = createPostgresProductRepository(recording);
    const workspaces = createPostgresWorkspaceRepository(recording);
    const keys = createPostgresApiKeyRepository(recording);
    const at = '2026-11-23T10:00:00.000Z';
    for (const repository of [products, workspaces] as const) {
      await repository.findById(10_000);
      await repository.findForUpdate(10_000);
      await repository.remove(10_001);
    }
    await products.listBefore(15_000, 51, null);
    await products.listBefore(15_000, 51, 2);
    await workspaces.listBefore(15_000, 51);
    await products.update({ id: 10_000, name: 'x', priceInCents: 1, status: 1, createdAt: at, updatedAt: at, version: 2 });
    await workspaces.update({ id: 10_000, name: 'x', createdAt: at, updatedAt: at, version: 2 });
    await keys.findById('000000010000');
    await keys.findForUpdate('000000010000');
    await keys.revoke('000000010001', at);
    await keys.listBefore(15_000, 51);
    assert.equal(seen.length, 15);
    for (const { sql, params } of seen) {
      const plan = (await client.rows(`EXPLAIN ${sql}`, params)).map((row) => String(row[0])).join('\n');
      assert.match(plan, /Index (Only )?Scan/, `${sql}\n${plan}`);
      assert.doesNotMatch(plan, /Seq Scan|Sort/, `${sql}\n${plan}`);
    }
  });

  test('postgres: a transaction still running past its deadline is cut off as StorageUnavailableError; the pool goes on', async () => {
    // A 600 ms request timeout: statements may take 200 ms, a whole transaction 300 ms.
    const client = openPostgres(await cluster.createDatabase(), { poolSize: 2, requestTimeoutMs: 600 });
    clients.push(client);
    // Each sleep is within the statement timeout, so only the transaction's deadline can stop them.
    const slow = client.transaction(async (tx) => {
      for (let i = 0; i < 4; i++) await tx.rows('SELECT pg_sleep(0.15)');
      return 'finished';
    });
    await assert.rejects(slow, StorageUnavailableError);
    assert.deepEqual(await client.rows('SELECT 1'), [[1]]);
    assert.equal(await client.transaction(async (tx) => (await tx.rows('SELECT 2'))[0]?.[0]), 2);
  });

  test('postgres: a single write runs in autocommit on the pool, with no BEGIN or COMMIT of its own', async () => {
    const client = await freshClient();
    const calls: string[] = [];
    // The real client, with each way in recorded: a single write must not open a transaction.
    const recorded: PostgresClient = {
      ...client,
      rows: (sql, params) => (calls.push(`rows ${sql.split(' ')[0]}`), client.rows(sql, params)),
      run: (sql, params) => (calls.push(`run ${sql.split(' ')[0]}`), client.run(sql, params)),
      transaction: (work) => (calls.push('transaction'), client.transaction(work)),
    };
    const storage = createPostgresStorage(recorded);
    const at = '2026-11-24T00:00:00.000Z';
    const made = await storage.singleWrite((tx) => tx.products.insert({ name: 'auto', priceInCents: 1, status: 1, createdAt: at, updatedAt: at }));
    // One statement: the insert and its event (WITH p AS (INSERT …) INSERT INTO events …).
    assert.deepEqual(calls, ['rows WITH']);
    assert.equal((await storage.products.findById(made.id))?.name, 'auto');
  });

  test('postgres: a second statement in a single write is refused before it runs, and says to use a transaction', async () => {
    const client = await freshClient();
    const storage = createPostgresStorage(client);
    const at = '2026-11-24T00:00:00.000Z';
    const twice = storage.singleWrite(async (tx) => {
      await tx.workspaces.insert({ name: 'first', createdAt: at, updatedAt: at });
      return tx.workspaces.insert({ name: 'second', createdAt: at, updatedAt: at });
    });
    await assert.rejects(twice, /second statement; use transaction\(\)/);
    assert.deepEqual(await client.rows("SELECT name FROM workspaces WHERE name IN ('first', 'second') ORDER BY name"), [['first']]);
  });
});
