import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Scope } from '../../src/callers/scopes.ts';
import type { PostgresClient, SqlRunner } from '../../src/postgres/client.ts';
import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { createPostgresStorage } from '../../src/postgres/storage.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { createPostgresResourceRepository } from '../../src/postgres/resources.ts';
import type { NewRow } from '../../src/resources/repository.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import { createPostgresApiKeyRepository } from '../../src/postgres/keys.ts';
import { keyRepositoryContract } from '../support/key-repository-contract.ts';
import { repositoryContract } from '../support/repository-contract.ts';
import { ALL_RESOURCES, changingPatch, filtersOf, GADGETS_TABLE, repository, RESOURCES, validBody, NEWEST_VERSION } from '../support/resources.ts';

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
    await client.script(GADGETS_TABLE.postgres);
    return client;
  }

  repositoryContract('postgres', async () => {
    const client = await freshClient();
    return { storage: createPostgresStorage(client, { resources: ALL_RESOURCES }), close: () => client.end() };
  }, ALL_RESOURCES);

  keyRepositoryContract('postgres', async () => {
    const client = await freshClient();
    return { storage: createPostgresStorage(client), close: () => client.end() };
  });

  test('postgres: every read, change and delete the repositories make is an index scan, never a sequential scan or a sort', async () => {
    const client = await freshClient();
    // Enough rows that the planner would choose a scan if no index served the query: 20,000 of each
    // resource, in groups of 1,000 made by the service's own grouped inserts.
    const storage = createPostgresStorage(client, { resources: ALL_RESOURCES });
    for (const resource of ALL_RESOURCES) {
      for (let group = 0; group < 20; group++) {
        const rows = Array.from({ length: 1_000 }, (_, i) => ({ ...validBody(resource, group * 1_000 + i, NEWEST_VERSION), createdAt: '2026-11-23T10:00:00.000Z', updatedAt: '2026-11-23T10:00:00.000Z' }) as NewRow);
        await Promise.all(rows.map((row) => storage.singleWrite((tx) => repository(tx, resource).insert(row))));
      }
    }
    await client.script(`INSERT INTO api_keys (id, name, scopes, digest, created_at) SELECT lpad(i::text, 12, '0'), 'k' || i, 'read', repeat('A', 43), now() FROM generate_series(1, 20000) AS i;
      ANALYZE api_keys; ${ALL_RESOURCES.map((resource) => `ANALYZE ${resource.plural};`).join(' ')}`);
    const seen: { sql: string; params: readonly unknown[] }[] = [];
    const recording: SqlRunner = {
      rows: (sql, params = []) => (seen.push({ sql, params }), client.rows(sql, params)),
      run: (sql, params = []) => (seen.push({ sql, params }), client.run(sql, params)),
      script: (sql) => client.script(sql),
    };
    const keys = createPostgresApiKeyRepository(recording);
    const at = '2026-11-23T10:00:00.000Z';
    let expected = 6;
    for (const resource of ALL_RESOURCES) {
      const resources = createPostgresResourceRepository(recording, resource);
      await resources.findById(10_000);
      await resources.findForUpdate(10_000);
      await resources.remove(10_001);
      await resources.listBefore(15_000, 51, []);
      for (const filter of filtersOf(resource)) await resources.listBefore(15_000, 51, [filter]);
      await resources.update({ ...changingPatch(resource, 0, NEWEST_VERSION), id: 10_000, createdAt: at, updatedAt: at, version: 2 } as AnyStored);
      expected += 5 + filtersOf(resource).length;
    }
    await keys.findById('000000010000');
    await keys.findForUpdate('000000010000');
    await keys.revoke('000000010001', at);
    await keys.update({ seq: 10_002, id: '000000010002', name: 'renamed', scopes: [Scope.read], digest: 'A'.repeat(43), createdAt: at, expiresAt: null, revokedAt: null, apiVersion: '2026-12-05', version: 2 });
    await keys.listBefore(15_000, 51);
    await keys.idsAfter(19_990);
    assert.equal(seen.length, expected);
    for (const { sql, params } of seen) {
      const plan = (await client.rows(`EXPLAIN ${sql}`, params)).map((row) => String(row[0])).join('\n');
      assert.match(plan, /Index (Only )?Scan/, `${sql}\n${plan}`);
      assert.doesNotMatch(plan, /Seq Scan|Sort/, `${sql}\n${plan}`);
    }
  });

  test('postgres: keys commit in the order of their seq: an insert waits for a transaction that has inserted one, so idsAfter never skips a key', async () => {
    const client = await freshClient();
    const storage = createPostgresStorage(client);
    const key = (id: string) => ({ id, name: 'k', scopes: [Scope.read], digest: 'A'.repeat(43), createdAt: '2026-11-24T00:00:00.000Z', expiresAt: null, revokedAt: null, apiVersion: '2026-11-21' });
    let inserted = (): void => {};
    let release = (): void => {};
    const firstInserted = new Promise<void>((resolve) => (inserted = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = client.transaction(async (tx) => {
      const made = await createPostgresApiKeyRepository(tx).insert(key('first0000000'));
      inserted();
      await held;
      return made;
    });
    await firstInserted;
    let secondDone = false;
    const second = storage.singleWrite((tx) => tx.keys.insert(key('second000000'))).then((made) => ((secondDone = true), made));
    try {
      await sleep(300);
      assert.equal(secondDone, false, 'the second insert waits for the first transaction to end');
      assert.deepEqual(await storage.keys.idsAfter(0), { ids: [], lastSeq: 0 }, 'so no reader sees the later seq without the earlier one');
    } finally {
      release();
    }
    const [a, b] = await Promise.all([first, second]);
    assert.ok(b.seq > a.seq);
    assert.deepEqual((await storage.keys.idsAfter(0)).ids, ['first0000000', 'second000000']);
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
    const [resource] = RESOURCES;
    assert.ok(resource !== undefined);
    const storage = createPostgresStorage(recorded, { resources: [resource] });
    const at = '2026-11-24T00:00:00.000Z';
    const made = await storage.singleWrite((tx) => repository(tx, resource).insert({ ...validBody(resource, 0, NEWEST_VERSION), createdAt: at, updatedAt: at } as NewRow));
    // One statement: the insert and its event (WITH p AS (INSERT …) INSERT INTO events …).
    assert.deepEqual(calls, ['rows WITH']);
    assert.deepEqual(await repository(storage, resource).findById(made.id), made);
  });

  test('postgres: a second statement in a single write is refused before it runs, and says to use a transaction', async () => {
    const client = await freshClient();
    const storage = createPostgresStorage(client, { resources: ALL_RESOURCES });
    const at = '2026-11-24T00:00:00.000Z';
    for (const resource of ALL_RESOURCES) {
      const twice = storage.singleWrite(async (tx) => {
        await repository(tx, resource).insert({ ...validBody(resource, 1, NEWEST_VERSION), createdAt: at, updatedAt: at } as NewRow);
        return repository(tx, resource).insert({ ...validBody(resource, 2, NEWEST_VERSION), createdAt: at, updatedAt: at } as NewRow);
      });
      await assert.rejects(twice, /second statement; use transaction\(\)/);
      // The first committed by itself (autocommit); the second never ran.
      assert.equal((await repository(storage, resource).listBefore(null, 10, [])).length, 1);
    }
  });
});
