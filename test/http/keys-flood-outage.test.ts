import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/api-keys.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { migratedDatabase } from '../postgres/support.ts';
import { BIN, runBin } from '../support/cli.ts';
import { type Answered, closeFloodAgents, getFrom, loopbackAddresses, startFlood } from '../support/flood.ts';
import { bearer } from '../support/keys.ts';
import { scrape } from '../support/scrape.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { capturingLogger } from '../support/server.ts';
import { TEST_ENGINE } from '../support/test-engine.ts';

// The flood of keys-flood.test.ts while the database cannot be read: a key made just before the outage
// and never used gets 503 with Retry-After, never 401 (which would tell its client to throw a good key
// away), and works once the database is back, without a restart.
//
// PostgreSQL: a cluster of this file's own, stopped ('fast') and started again. SQLite: a read fails
// only while another connection holds the file exclusively. In WAL mode (the service's) that happens
// only during WAL recovery after a crash or the last connection's checkpoint, neither of which a test
// can time; so the file is put in rollback-journal mode, where another program's BEGIN EXCLUSIVE locks
// every reader out, and the service waits its 5 s for the lock, then answers 503 (StorageBusyError).
// The key is then made with createApiKey, what bin/keys.js runs: bin/keys.js itself would put the file
// back in WAL mode.

interface Outage {
  url: string;
  metricsUrl: string;
  /** Makes a key on the database, behind the server's back; the key. */
  makeKey(): Promise<string>;
  begin(): Promise<void>;
  end(): Promise<void>;
  stop(): Promise<void>;
}

const ENV = { SVC_PORT: '0', SVC_AUTH: 'keys', SVC_LOG_LEVEL: 'error', SVC_REQUEST_TIMEOUT_MS: '20000', SVC_HEADERS_TIMEOUT_MS: '15000', SVC_METRICS_PORT: '0' };

async function postgresOutage(): Promise<Outage> {
  const cluster: PostgresCluster = await startPostgres();
  const databaseUrl = await migratedDatabase(cluster);
  const config = loadConfig({ ...ENV, SVC_DATABASE_URL: databaseUrl });
  const running: RunningServer = await startServer(config, { logger: capturingLogger(config, []) });
  return {
    url: running.url,
    metricsUrl: running.metricsUrl as string,
    async makeKey() {
      const made = await runBin(BIN.keys, ['create', '--name', 'made during the flood', '--scopes', 'read'], { env: { SVC_DATABASE_URL: databaseUrl } });
      assert.equal(made.code, 0, made.stderr);
      return made.stdout.trim();
    },
    begin: () => cluster.stopServer('fast'),
    end: () => cluster.startServer(),
    async stop() {
      await running.close();
      await cluster.stop();
    },
  };
}

async function sqliteOutage(): Promise<Outage> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-flood-outage-'));
  const path = join(dir, 'app.db');
  const setup = openDatabase(path, { create: true });
  migrate(setup);
  setup.exec('PRAGMA journal_mode = DELETE');
  setup.close();
  const served = new DatabaseSync(path);
  const other = new DatabaseSync(path);
  const config = loadConfig({ ...ENV, SVC_DB_PATH: path });
  const running = await startServer(config, { db: served, logger: capturingLogger(config, []) });
  return {
    url: running.url,
    metricsUrl: running.metricsUrl as string,
    async makeKey() {
      const db = new DatabaseSync(path);
      try {
        return (await createApiKey(db, { name: 'made during the flood', scopes: ['read'] })).key;
      } finally {
        db.close();
      }
    },
    begin: async () => void other.exec('BEGIN EXCLUSIVE'),
    end: async () => void other.exec('ROLLBACK'),
    async stop() {
      await running.close();
      served.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('a flood of invented keys while the database is away', { skip: TEST_ENGINE === 'postgres' ? skipWithoutPostgres() : false }, () => {
  let outage: Outage;
  before(async () => {
    outage = TEST_ENGINE === 'postgres' ? await postgresOutage() : await sqliteOutage();
  });
  after(async () => {
    closeFloodAgents();
    await outage?.stop();
  });

  test('a key made during the flood gets 503 with Retry-After while the database cannot be read, never 401, and 200 once it is back', { timeout: 120_000 }, async () => {
    const products = `${outage.url}/api/products`;
    const flood = startFlood(products, loopbackAddresses(50), 50);
    await sleep(1_000);
    const key = await outage.makeKey();
    const failedBefore = (await scrape(outage.metricsUrl)).baseline('api_key_id_refreshes_total', { result: 'failed' });
    await outage.begin();
    const down: Answered[] = [];
    const outageStartedAt = performance.now();
    // Its first request and those after: the process cannot tell whether the key exists, or read it.
    while (down.length < 3 || performance.now() - outageStartedAt < 3_000) down.push(await getFrom(products, bearer(key), '127.0.0.2'));
    // However many invented keys ask, and however fast a refresh fails, one starts per 250 ms at most.
    const outageSeconds = (performance.now() - outageStartedAt) / 1000;
    const failedRefreshes = (await scrape(outage.metricsUrl)).value('api_key_id_refreshes_total', { result: 'failed' }) - failedBefore;
    await outage.end();
    const back: number[] = [];
    const deadline = performance.now() + 60_000;
    while (back.at(-1) !== 200) {
      assert.ok(performance.now() < deadline, `the key never worked again: ${back.join()}`);
      back.push((await getFrom(products, bearer(key), '127.0.0.2')).status);
      if (back.at(-1) !== 200) await sleep(200);
    }
    const result = await flood.stop();

    assert.deepEqual([...new Set(down.map((answer) => answer.status))], [503], `while the database was away: ${down.map((answer) => answer.status).join()}`);
    assert.ok(down.every((answer) => Number(answer.retryAfter) >= 1), 'every 503 says when to retry');
    assert.deepEqual([...new Set(back.slice(0, -1))].filter((status) => status !== 503), [], `never a 401 on the way back: ${back.join()}`);
    assert.deepEqual([...result.statuses.keys()].filter((status) => status !== 401 && status !== 503), [], 'the invented keys: 401, or 503 while nothing could be read');
    assert.ok((result.statuses.get(503) ?? 0) > 0 && (result.statuses.get(401) ?? 0) > 0);
    assert.ok(failedRefreshes >= 1 && failedRefreshes <= Math.ceil(outageSeconds * 4) + 3, `${failedRefreshes} failed refreshes of the key ids in ${outageSeconds.toFixed(1)} s`);
    console.log(`# ${TEST_ENGINE}: ${result.sent} invented keys (${[...result.statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}); the key: ${down.length} x 503 while away, then ${back.join()}; ${failedRefreshes} failed refreshes of the ids in ${outageSeconds.toFixed(1)} s`);
  });
});
