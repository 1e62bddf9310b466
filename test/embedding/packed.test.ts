import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

// The package as another project gets it: `npm pack`, installed from the tarball into a fresh
// project, imported by name from JavaScript and type-checked from TypeScript. Nothing from this
// checkout's src/ is involved: only what `files` ships (dist/, sql/, bin/).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// What a fresh database gets from the shipped sql/: every numbered file, in order.
const MIGRATION_FILES = readdirSync(join(ROOT, 'sql')).filter((name) => name.endsWith('.sql')).sort();
let dir: string;
let project: string;

// Without the outer npm's variables, so an enclosing `npm test` cannot redirect the inner npm.
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): string {
  return execFileSync(file, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
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

const HOST_TS = `
import { type App, type Config, createApp, loadConfig, migrate, openDatabase, type RunningServer, startServer } from 'svc-http-sqlite';
const db = openDatabase(':memory:');
const applied: string[] = migrate(db).applied;
const config: Config = loadConfig({});
const app: App = createApp({ db, config });
const start: (config: Config) => Promise<RunningServer> = startServer;
// @ts-expect-error the declarations are precise: a port is a number
const wrong: Config = { ...config, port: '3000' };
void [applied, app, start, wrong];
`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pack-'));
  // --ignore-scripts: pack the dist/ that `npm test` built, without rebuilding it under other tests.
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], ROOT);
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack made a tarball');
  project = join(dir, 'host');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(dir, tarball)], project);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('an installed tarball is imported by name, mounted, and serves the contract from :memory:', () => {
  writeFileSync(join(project, 'host.js'), HOST_JS);
  const result = JSON.parse(run(process.execPath, ['host.js'], project)) as Record<string, unknown>;
  assert.deepEqual(result, {
    applied: MIGRATION_FILES,
    created: 201,
    ping: { status: 1, checks: { database: 1, schema: 1 } },
    host: 'host',
    missing: 'not_found',
  });
});

test('its type declarations check a TypeScript host strictly', () => {
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

test('its bin scripts run from node_modules on the compiled build', () => {
  const dbPath = join(dir, 'data', 'app.db');
  const env = { ...cleanEnv(), SVC_DB_PATH: dbPath };
  const migrateBin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', 'migrate.js');
  assert.ok(run(process.execPath, [migrateBin], project, env).includes(`"applied":${JSON.stringify(MIGRATION_FILES)}`));
  const status = JSON.parse(run(process.execPath, [migrateBin, '--status'], project, env)) as Record<string, unknown>;
  assert.deepEqual([status['current'], status['latest'], status['pending']], [MIGRATION_FILES.length, MIGRATION_FILES.length, []]);
});

test('without the optional pg installed, its bin scripts given SVC_DATABASE_URL say in one line to install pg', () => {
  // npm does not install an optional peer dependency: the host gets pg only when it asks for it.
  assert.throws(() => run(process.execPath, ['-e', "require.resolve('pg')"], project), /Cannot find module 'pg'/);
  const env = { ...cleanEnv(), SVC_DATABASE_URL: 'postgres://svc:secret@127.0.0.1:5432/svc' };
  for (const script of ['serve.js', 'migrate.js']) {
    const bin = join(project, 'node_modules', 'svc-http-sqlite', 'bin', script);
    const result = spawnSync(process.execPath, [bin], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(result.status, 0, script);
    assert.match(result.stderr, /^[^\n]*PostgreSQL client is not installed: run `npm install pg`\n$/, script);
  }
});
