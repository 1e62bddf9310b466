import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { staleBuildReason } from '../support/build-freshness.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { onceForBothEngines, TEST_ENGINE } from '../support/test-engine.ts';

// The package as another project gets it: `npm pack`, installed from the tarball into a fresh
// project, imported by name from JavaScript and type-checked from TypeScript. Nothing from this
// checkout's src/ is involved: only what `files` ships (dist/, sql/, bin/). In the PostgreSQL pass
// the project installs `pg` (the optional peer dependency) and runs everything on PostgreSQL.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// What a fresh database gets from the shipped migrations: every numbered file, in order.
const migrationFiles = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.sql')).sort();
const MIGRATION_FILES = migrationFiles(join(ROOT, TEST_ENGINE === 'sqlite' ? 'sql' : 'sql/postgres'));
const PG_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['pg'];
let dir: string;
let project: string;
const databases: TestDatabase[] = [];

// Without the outer npm's variables, so an enclosing `npm test` cannot redirect the inner npm.
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): string {
  return execFileSync(file, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

// The run's database for a spawned program: SVC_DB_PATH in a folder of its own, or a fresh empty
// PostgreSQL database's SVC_DATABASE_URL.
async function databaseEnv(name: string): Promise<NodeJS.ProcessEnv> {
  if (TEST_ENGINE === 'sqlite') return { ...cleanEnv(), SVC_DB_PATH: join(dir, name, 'app.db') };
  const database = await createTestDatabase({ migrated: false });
  databases.push(database);
  return { ...cleanEnv(), ...database.env };
}

let pgInstalled = false;
// The PostgreSQL client, installed into the host project as a user of PostgreSQL would (once).
function installPg(): void {
  if (pgInstalled) return;
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', `pg@${PG_VERSION}`], project);
  pgInstalled = true;
}

const HOST_JS = `
import { createServer } from 'node:http';
import { createApp, loadConfig, migrate, openDatabase } from 'svc-http-sqlite';
const db = openDatabase(':memory:');
const { applied } = migrate(db);
const app = createApp({ db, config: loadConfig({ SVC_LOG_LEVEL: 'silent' }) });
const server = createServer((req, res) => (req.url.startsWith('/api/') ? app(req, res) : res.end('host')));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
const created = await fetch(base + '/api/workspaces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Acme"}' });
const ping = await fetch(base + '/api/ping');
const host = await fetch(base + '/');
const missing = await fetch(base + '/api/workspaces/99');
console.log(JSON.stringify({ applied, created: created.status, ping: await ping.json(), host: await host.text(), missing: (await missing.json()).code }));
server.close();
db.close();
`;

// On PostgreSQL: openPostgres + migrate + createApp mounted by the host, then startServer on the same
// database from SVC_DATABASE_URL, which sees what the mounted app created.
const HOST_PG_JS = `
import { createServer } from 'node:http';
import { createApp, loadConfig, migrate, openPostgres, startServer } from 'svc-http-sqlite';
const db = openPostgres(process.env.SVC_DATABASE_URL);
const { applied } = await migrate(db);
const app = createApp({ db, config: loadConfig({ SVC_LOG_LEVEL: 'silent' }) });
const server = createServer((req, res) => (req.url.startsWith('/api/') ? app(req, res) : res.end('host')));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
const created = await fetch(base + '/api/workspaces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Acme"}' });
const { id } = await created.json();
const ping = await fetch(base + '/api/ping');
const host = await fetch(base + '/');
const missing = await fetch(base + '/api/workspaces/99');
const running = await startServer(loadConfig({ SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_DATABASE_URL: process.env.SVC_DATABASE_URL }));
const seen = await fetch(running.url + '/api/workspaces/' + id);
const served = { ping: (await fetch(running.url + '/api/ping')).status, name: (await seen.json()).name };
await running.close();
server.close();
await db.end();
console.log(JSON.stringify({ applied, created: created.status, ping: await ping.json(), host: await host.text(), missing: (await missing.json()).code, served }));
`;

const HOST_TS = `
import { type ApiKeyView, type App, type Config, createApiKey, createApp, loadConfig, migrate, type MigrationResult, openDatabase, openPostgres, type PostgresDatabase, revokeApiKey, type RunningServer, startServer } from 'svc-http-sqlite';
const db = openDatabase(':memory:');
const applied: string[] = migrate(db).applied;
const config: Config = loadConfig({});
const app: App = createApp({ db, config });
const start: (config: Config) => Promise<RunningServer> = startServer;
// @ts-expect-error the declarations are precise: a port is a number
const wrong: Config = { ...config, port: '3000' };
// PostgreSQL: the same app on a pool, and a migration that is a promise.
const pool: PostgresDatabase = openPostgres('postgres://user:password@db.example:5432/app', { poolSize: 4 });
const pending: Promise<MigrationResult> = migrate(pool);
const onPool: App = createApp({ db: pool, config });
// @ts-expect-error PostgreSQL's migrate is a promise, not a result
const notAwaited: MigrationResult = migrate(pool);
// API keys: made and revoked on either engine's database; the key is a string, scopes are names.
const made: Promise<ApiKeyView & { key: string }> = createApiKey(db, { name: 'ci', scopes: ['read', 'write'], expiresAt: null });
const revoked: Promise<ApiKeyView | undefined> = revokeApiKey(pool, 'abcdefghijkl');
// @ts-expect-error a scope is one of the names read, write, admin
const badScope = createApiKey(db, { name: 'x', scopes: ['root'] });
void [applied, app, start, wrong, pending, onPool, notAwaited, made, revoked, badScope];
`;

before(() => {
  // What is packed is dist/ as it is: refuse one older than src/ rather than test an old build.
  const stale = staleBuildReason();
  assert.equal(stale, null, `${stale}: run \`npm run build\` (npm run test:suite and test:postgres do) before packing`);
  dir = mkdtempSync(join(tmpdir(), 'svc-pack-'));
  // --ignore-scripts: pack the dist/ the test scripts built, without rebuilding it under other tests.
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], ROOT);
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack made a tarball');
  project = join(dir, 'host');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(dir, tarball)], project);
});
after(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

// Before anything installs pg: a SQLite user never needs it, and nothing fetches it at run time.
test('without pg installed, serve and migrate with SVC_DATABASE_URL exit 1 with one line naming the package, installing nothing', async () => {
  const listing = (): string => JSON.stringify([readdirSync(join(project, 'node_modules')).sort(), readFileSync(join(project, 'package.json'), 'utf8')]);
  const installed = listing();
  // npm does not install an optional peer dependency: the host gets pg only when it asks for it.
  assert.throws(() => run(process.execPath, ['-e', "require.resolve('pg')"], project), /Cannot find module 'pg'/);
  const env = TEST_ENGINE === 'sqlite' ? { ...cleanEnv(), SVC_DATABASE_URL: 'postgres://svc:secret@127.0.0.1:1/svc' } : await databaseEnv('no-pg');
  const serveBin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', 'serve.js');
  const result = spawnSync(process.execPath, [serveBin], { cwd: project, env: { ...env, SVC_PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(result.status, 1);
  assert.equal(result.stderr, 'cannot start: SVC_DATABASE_URL is set but the PostgreSQL client is not installed: run `npm install pg`\n');
  assert.doesNotMatch(result.stderr + result.stdout, /secret|\n\s+at /, 'no password, no stack');
  const migrateBin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', 'migrate.js');
  const migrated = spawnSync(process.execPath, [migrateBin], { cwd: project, env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(migrated.status, 1);
  assert.match(migrated.stderr, /^[^\n]*PostgreSQL client is not installed: run `npm install pg`\n$/);
  assert.equal(existsSync(join(project, 'node_modules', 'pg')), false);
  assert.equal(listing(), installed, 'node_modules and package.json are as npm left them');
});

test(`an installed tarball is imported by name, mounted, and serves the contract from ${TEST_ENGINE === 'sqlite' ? ':memory:' : 'PostgreSQL (pg installed)'}`, async () => {
  const expected = { applied: MIGRATION_FILES, created: 201, ping: { status: 1, checks: { database: 1, schema: 1 } }, host: 'host', missing: 'not_found' };
  if (TEST_ENGINE === 'sqlite') {
    writeFileSync(join(project, 'host.js'), HOST_JS);
    assert.deepEqual(JSON.parse(run(process.execPath, ['host.js'], project)), expected);
    return;
  }
  installPg();
  writeFileSync(join(project, 'host-pg.js'), HOST_PG_JS);
  const result = JSON.parse(run(process.execPath, ['host-pg.js'], project, await databaseEnv('host'))) as Record<string, unknown>;
  assert.deepEqual(result, { ...expected, served: { ping: 200, name: 'Acme' } });
});

test('its type declarations check a TypeScript host strictly', onceForBothEngines('type-checking'), () => {
  writeFileSync(join(project, 'host.ts'), HOST_TS);
  const tsconfig = {
    compilerOptions: {
      target: 'es2023',
      module: 'nodenext',
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
    },
    files: ['host.ts'],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
});

test('its bin scripts run from node_modules on the compiled build', async () => {
  if (TEST_ENGINE === 'postgres') installPg();
  const env = await databaseEnv('data');
  const migrateBin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', 'migrate.js');
  assert.ok(run(process.execPath, [migrateBin], project, env).includes(`"applied":${JSON.stringify(MIGRATION_FILES)}`));
  const status = JSON.parse(run(process.execPath, [migrateBin, '--status'], project, env)) as Record<string, unknown>;
  assert.deepEqual([status['current'], status['latest'], status['pending']], [MIGRATION_FILES.length, MIGRATION_FILES.length, []]);
  const keysBin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', 'keys.js');
  const key = run(process.execPath, [keysBin, 'create', '--name', 'packed', '--scopes', 'admin'], project, env);
  assert.match(key, /^svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}\n$/);
  assert.match(run(process.execPath, [keysBin, 'list'], project, env), new RegExp(`^ID .*\n${key.slice(4, 16)} +admin .* packed\n$`));
});
