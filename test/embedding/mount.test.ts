import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
// By name, as another project would: package.json `exports` sends this to dist/ (run `npm run build` first).
import { type App, createApp, createLogger, loadConfig, migrate, openDatabase, RESOURCES, startServer } from 'svc-http-sqlite';
import { type EmbeddedDatabase, openEmbeddedDatabase } from '../support/embedded-database.ts';
import { validBody, fieldsIn } from '../support/resources.ts';
import { TEST_ENGINE } from '../support/test-engine.ts';

// A host program with its own route, delegating everything under /api/ to the embedded app: on
// `:memory:` SQLite, or in the PostgreSQL pass on a database opened with openPostgres(url). The
// first resource the package serves is the sample of a request.
const SAMPLE = RESOURCES[0] ?? assert.fail('the package serves a resource');
let db: EmbeddedDatabase;
let app: App;
let host: Server;
let base: string;
const logLines: string[] = [];

before(async () => {
  db = await openEmbeddedDatabase();
  await db.migrate();
  const config = loadConfig({});
  app = createApp({ db: db.db, config, logger: createLogger('info', (chunk) => logLines.push(chunk)) });
  host = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) return app(req, res);
    if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('host ok');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not the host\'s');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

after(async () => {
  host.closeAllConnections();
  await new Promise<void>((resolve) => host.close(() => resolve()));
  await db.close();
});

const postJson = (path: string, body: unknown): Promise<Response> =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('the package name resolves to the compiled build, not the sources', () => {
  assert.match(import.meta.resolve('svc-http-sqlite'), /\/dist\/index\.js$/);
});

test('the host keeps its own routes, untouched by the app', async () => {
  const health = await fetch(`${base}/health`);
  assert.deepEqual([health.status, await health.text()], [200, 'host ok']);
  assert.equal(health.headers.get('x-request-id'), null);
  assert.equal(health.headers.get('content-security-policy'), null);
  const other = await fetch(`${base}/elsewhere`);
  assert.deepEqual([other.status, await other.text()], [404, 'not the host\'s']);
});

test(`a ${TEST_ENGINE === 'sqlite' ? 'in-memory' : 'PostgreSQL'} database, migrated by the package's own migrations, is ready`, async () => {
  const ping = await fetch(`${base}/api/ping`);
  assert.equal(ping.status, 200);
  assert.deepEqual(await ping.json(), { status: 1, checks: { database: 1, schema: 1 } });
  assert.deepEqual((await db.migrate()).applied, [], 'migrating again changes nothing');
});

test('create, list and read through the host, with the security headers and the access log', async () => {
  const body = validBody(SAMPLE);
  const created = await postJson(SAMPLE.path, body);
  assert.equal(created.status, 201);
  const stored = (await created.json()) as { id: number };
  assert.deepEqual(stored, { ...stored, ...body });
  assert.equal(created.headers.get('location'), `${SAMPLE.path}/${stored.id}`);
  assert.equal(created.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(created.headers.get('cache-control'), 'no-store');
  const list = (await (await fetch(`${base}${SAMPLE.path}`)).json()) as { id: number }[];
  assert.equal(list[0]?.id, stored.id);
  assert.deepEqual(await (await fetch(`${base}${SAMPLE.path}/${stored.id}`)).json(), stored);
  app.logger.flush();
  const lines = logLines.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { req: { url: string } });
  assert.ok(lines.some((line) => line.req.url === SAMPLE.path), 'the app logs its own requests');
  assert.ok(!lines.some((line) => line.req.url === '/health'), 'and not the host\'s');
});

test('errors are problem documents with the security headers', async () => {
  const missing = await fetch(`${base}${SAMPLE.path}/424242`, { headers: { 'x-request-id': 'host-trace-1' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  assert.equal(missing.headers.get('x-frame-options'), 'DENY');
  assert.equal(missing.headers.get('x-request-id'), 'host-trace-1');
  const problem = (await missing.json()) as Record<string, unknown>;
  assert.deepEqual([problem['code'], problem['instance'], problem['requestId']], ['not_found', `${SAMPLE.path}/424242`, 'host-trace-1']);
  const invalid = await postJson(SAMPLE.path, { extra: 1 });
  assert.equal(invalid.status, 422);
  const errors = ((await invalid.json()) as { errors: { pointer: string; code: string }[] }).errors.map((error) => `${error.pointer} ${error.code}`);
  const required = Object.entries(fieldsIn(SAMPLE)).filter(([, field]) => field.required && field.default === undefined).map(([name]) => `/${name} required`);
  assert.deepEqual(errors, [...required, '/extra unknown_field']);
  const notAllowed = await fetch(`${base}${SAMPLE.path}`, { method: 'PUT' });
  assert.equal(notAllowed.status, 405);
  assert.deepEqual(notAllowed.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
});

// A database the package migrated, named by the variables startServer reads: a file, or SVC_DATABASE_URL.
async function migratedFor(dir: string): Promise<{ env: Record<string, string>; remove(): Promise<void> }> {
  if (TEST_ENGINE === 'sqlite') {
    const dbPath = join(dir, 'app.db');
    const file = openDatabase(dbPath, { create: true });
    migrate(file);
    file.close();
    return { env: { SVC_DB_PATH: dbPath }, remove: async () => {} };
  }
  // Migrated through a pool of the test's own; startServer opens one of its own on the URL.
  const embedded = await openEmbeddedDatabase();
  await embedded.migrate();
  return { env: embedded.env, remove: () => embedded.close() };
}

test('startServer runs the whole service on its own listener and closes gracefully', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-embed-'));
  const database = await migratedFor(dir);
  try {
    const running = await startServer(loadConfig({ SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', ...database.env }));
    const ping = await fetch(`${running.url}/api/ping`);
    assert.equal(ping.status, 200);
    await ping.arrayBuffer();
    await running.close();
    await assert.rejects(fetch(`${running.url}/api/ping`));
  } finally {
    await database.remove();
    rmSync(dir, { recursive: true, force: true });
  }
});
