import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_POSTGRES_SQL_DIR, readMigrations } from '../../src/db/migrations.ts';
import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { BIN, linesOf, type RunResult, runBin } from '../support/cli.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { rowsOf } from './support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = readMigrations(DEFAULT_POSTGRES_SQL_DIR).map((m) => m.file);
const LATEST = FILES.length;
const ADVICE = 'run `node bin/migrate.js` (or `npm run migrate`) first';

/** The one JSON line migrate logs on stdout. */
function logLine(result: RunResult): { msg: string } & Record<string, unknown> {
  const lines = linesOf(result.stdout);
  assert.equal(lines.length, 1, `one line on stdout: ${result.stdout}`);
  return JSON.parse(lines[0] ?? '') as { msg: string };
}

/** The one line on stderr of a process that refused. */
function refusal(result: RunResult): string {
  assert.notEqual(result.code, 0, 'exits non-zero');
  const lines = linesOf(result.stderr);
  assert.equal(lines.length, 1, `one line on stderr: ${result.stderr}`);
  return lines[0] ?? '';
}

// `node bin/migrate.js` and `node bin/serve.js` on PostgreSQL (SVC_DATABASE_URL), as the contract's
// migration rules say: numbered files, each in its own transaction with its version row, the version
// in the database, two migrators at once safe, a newer database refused, serve never migrating.
describe('bin/migrate.js and bin/serve.js on PostgreSQL', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  const folders: string[] = [];
  before(async () => {
    cluster = await startPostgres();
  });
  after(async () => {
    folders.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
    await cluster?.stop();
  });

  const migrate = (url: string, args: string[] = [], script = BIN.migrate): Promise<RunResult> => runBin(script, args, { env: { SVC_DATABASE_URL: url } });
  const serve = (url: string, script = BIN.serve): Promise<RunResult> => runBin(script, [], { env: { SVC_DATABASE_URL: url, SVC_PORT: '0' } });
  const versions = (url: string): Promise<string[][]> => rowsOf(cluster, url, 'SELECT version, file FROM schema_migrations ORDER BY version');
  const tables = (url: string): Promise<string[][]> =>
    rowsOf(cluster, url, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2");

  /** A copy of the package (bin/, src/, sql/) in a temporary folder, with or without the `pg` client beside it. */
  function packageCopy(withClient: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'svc-copy-'));
    folders.push(dir);
    for (const part of ['bin', 'src', 'sql', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    if (withClient) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return dir;
  }

  test('a fresh database gets every file in order; run again it is already current and nothing changes', async () => {
    const url = await cluster.createDatabase();
    const first = await migrate(url);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    const applied = logLine(first);
    assert.match(applied.msg, new RegExp(`^migrated postgres://svc:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/svc_test_\\d+ from version 0 to ${LATEST}$`));
    assert.deepEqual(applied['applied'], FILES);
    assert.deepEqual(await versions(url), FILES.map((file, i) => [String(i + 1), file]));
    const schema = await tables(url);
    const stamps = await rowsOf(cluster, url, 'SELECT applied_at FROM schema_migrations ORDER BY version');

    const second = await migrate(url);
    assert.equal(second.code, 0, second.stderr);
    assert.match(logLine(second).msg, new RegExp(`already current \\(version ${LATEST}\\)$`));
    assert.deepEqual(await rowsOf(cluster, url, 'SELECT applied_at FROM schema_migrations ORDER BY version'), stamps);
    assert.deepEqual(await tables(url), schema);
  });

  test('--status reports and changes nothing: a fresh database does not even get the version table', async () => {
    const url = await cluster.createDatabase();
    const fresh = await migrate(url, ['--status']);
    assert.equal(fresh.code, 0, fresh.stderr);
    const line = logLine(fresh);
    assert.match(line.msg, new RegExp(`is at version 0, newest is ${LATEST}: ${LATEST} pending$`));
    assert.deepEqual(line['pending'], FILES);
    assert.deepEqual(await tables(url), []);
    await migrate(url);
    assert.match(logLine(await migrate(url, ['--status'])).msg, new RegExp(`is at version ${LATEST}, newest is ${LATEST}: current$`));
  });

  test('two migrators started at once on one database both exit 0, and each file is applied once', async () => {
    for (let round = 0; round < 3; round++) {
      const url = await cluster.createDatabase();
      const results = await Promise.all([migrate(url), migrate(url)]);
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      // Whichever took the advisory lock for a file applied it; the other then found it applied.
      const applied = results.flatMap((result) => (logLine(result)['applied'] as string[] | undefined) ?? []);
      assert.deepEqual(applied.sort(), FILES);
      assert.deepEqual(await versions(url), FILES.map((file, i) => [String(i + 1), file]));
    }
  });

  test('a database newer than the files is refused by migrate and by serve, and left as it was', async () => {
    const url = await cluster.createDatabase();
    await migrate(url);
    await cluster.sql(`INSERT INTO schema_migrations (version, file) VALUES (${LATEST + 1}, '00${LATEST + 1}_future.sql')`, new URL(url).pathname.slice(1));
    const [before, schema] = [await versions(url), await tables(url)];
    assert.equal(
      refusal(await migrate(url)),
      `migration refused: database is at version ${LATEST + 1}, newer than the newest migration (${LATEST}); refusing to touch it`,
    );
    assert.match(refusal(await serve(url)), new RegExp(`is at schema version ${LATEST + 1}, this build needs ${LATEST}; run \`node bin/migrate.js\``));
    assert.match(logLine(await migrate(url, ['--status'])).msg, /newer than this build$/);
    assert.deepEqual([await versions(url), await tables(url)], [before, schema]);
  });

  test('serve never migrates: it refuses a database at version 0 or 1 with the advice to run migrate', async () => {
    const empty = await cluster.createDatabase();
    const older = await cluster.createDatabase();
    const onlyFirst = mkdtempSync(join(tmpdir(), 'svc-sql-'));
    folders.push(onlyFirst);
    cpSync(join(DEFAULT_POSTGRES_SQL_DIR, FILES[0] ?? ''), join(onlyFirst, FILES[0] ?? ''));
    const client = openPostgres(older, { poolSize: 1 });
    await migratePostgres(client, onlyFirst).finally(() => client.end());
    for (const [url, version] of [[empty, 0], [older, 1]] as const) {
      const line = refusal(await serve(url));
      assert.match(line, new RegExp(`^database postgres://svc:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/svc_test_\\d+ is at schema version ${version}, this build needs ${LATEST}; `));
      assert.ok(line.endsWith(ADVICE), line);
    }
    assert.deepEqual(await tables(empty), [], 'serve created nothing');
  });

  test('a file that fails is rolled back whole and named; the files before it stay applied', async () => {
    // A build with a broken next file: a copy of the package with one more file in sql/postgres.
    const copy = packageCopy(true);
    const broken = `${String(LATEST + 1).padStart(3, '0')}_broken.sql`;
    writeFileSync(
      join(copy, 'sql', 'postgres', broken),
      'CREATE TABLE half_done (id integer);\nALTER TABLE products ADD COLUMN half integer;\nINSERT INTO half_done VALUES (1);\nSELECT 1 / 0;\n',
    );
    const url = await cluster.createDatabase();
    const line = refusal(await migrate(url, [], join(copy, 'bin', 'migrate.js')));
    assert.equal(line, `migration refused: ${broken} failed and was rolled back: division by zero`);
    assert.deepEqual(await versions(url), FILES.map((file, i) => [String(i + 1), file]));
    assert.deepEqual(await rowsOf(cluster, url, "SELECT to_regclass('half_done') IS NULL, count(*) FROM information_schema.columns WHERE column_name = 'half'"), [['t', '0']]);
    assert.match(logLine(await migrate(url, ['--status'], join(copy, 'bin', 'migrate.js'))).msg, new RegExp(`is at version ${LATEST}, newest is ${LATEST + 1}: 1 pending$`));
  });

  test('PostgreSQL not running: serve and migrate each print one line saying it cannot be reached, and exit non-zero', async () => {
    const url = await cluster.createDatabase();
    await migrate(url);
    await cluster.stopServer('fast');
    try {
      assert.match(refusal(await serve(url)), /^cannot start: PostgreSQL cannot be reached: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
      assert.match(refusal(await migrate(url)), /^migration refused: PostgreSQL cannot be reached: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    } finally {
      await cluster.startServer();
    }
  });

  test('without the pg package installed: serve and migrate print one line naming it and how to install it, and exit non-zero', async () => {
    const copy = packageCopy(false);
    const entry = join(copy, 'src', 'db', 'postgres', 'open.ts');
    assert.throws(() => createRequire(entry).resolve('pg'), { code: 'MODULE_NOT_FOUND' }, 'pg must not be reachable from the copy');
    const expected = 'SVC_DATABASE_URL is set but the PostgreSQL client is not installed: run `npm install pg`';
    assert.equal(refusal(await serve(cluster.url, join(copy, 'bin', 'serve.js'))), `cannot start: ${expected}`);
    assert.equal(refusal(await migrate(cluster.url, [], join(copy, 'bin', 'migrate.js'))), `migration refused: ${expected}`);
  });
});
