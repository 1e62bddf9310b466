import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
// By name, as another project would: package.json `exports` sends this to dist/ (run `npm run build` first).
import { type App, createApp, createLogger, loadConfig, migrate, openDatabase, startServer } from 'svc-http-sqlite';

// A host program with its own route, delegating everything under /api/ to the embedded app.
let db: DatabaseSync;
let app: App;
let host: Server;
let base: string;
const logLines: string[] = [];

before(async () => {
  db = openDatabase(':memory:');
  migrate(db);
  const config = loadConfig({});
  app = createApp({ db, config, logger: createLogger('info', (chunk) => logLines.push(chunk)) });
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
  db.close();
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

test('an in-memory database, migrated by the package\'s own sql/, is ready', async () => {
  const ping = await fetch(`${base}/api/ping`);
  assert.equal(ping.status, 200);
  assert.deepEqual(await ping.json(), { status: 1, checks: { database: 1, schema: 1 } });
  assert.deepEqual(migrate(db).applied, [], 'migrating again changes nothing');
});

test('create, list and read through the host, with the security headers and the access log', async () => {
  const created = await postJson('/api/products', { name: '  Desk lamp ', priceInCents: 1999 });
  assert.equal(created.status, 201);
  const product = (await created.json()) as { id: number; name: string };
  assert.equal(product.name, 'Desk lamp');
  assert.equal(created.headers.get('location'), `/api/products/${product.id}`);
  assert.equal(created.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(created.headers.get('cache-control'), 'no-store');
  const list = (await (await fetch(`${base}/api/products`)).json()) as { id: number }[];
  assert.equal(list[0]?.id, product.id);
  assert.deepEqual(await (await fetch(`${base}/api/products/${product.id}`)).json(), product);
  app.logger.flush();
  const lines = logLines.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { req: { url: string } });
  assert.ok(lines.some((line) => line.req.url === '/api/products'), 'the app logs its own requests');
  assert.ok(!lines.some((line) => line.req.url === '/health'), 'and not the host\'s');
});

test('errors are problem documents with the security headers', async () => {
  const missing = await fetch(`${base}/api/products/424242`, { headers: { 'x-request-id': 'host-trace-1' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  assert.equal(missing.headers.get('x-frame-options'), 'DENY');
  assert.equal(missing.headers.get('x-request-id'), 'host-trace-1');
  const problem = (await missing.json()) as Record<string, unknown>;
  assert.deepEqual([problem['code'], problem['instance'], problem['requestId']], ['not_found', '/api/products/424242', 'host-trace-1']);
  const invalid = await postJson('/api/workspaces', { name: '', extra: 1 });
  assert.equal(invalid.status, 422);
  const errors = ((await invalid.json()) as { errors: { code: string }[] }).errors.map((error) => error.code);
  assert.deepEqual(errors.sort(), ['too_short', 'unknown_field']);
  const notAllowed = await fetch(`${base}/api/workspaces`, { method: 'PUT' });
  assert.equal(notAllowed.status, 405);
  assert.deepEqual(notAllowed.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
});

test('startServer runs the whole service on its own listener and closes gracefully', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-embed-'));
  try {
    const dbPath = join(dir, 'app.db');
    const file = openDatabase(dbPath, { create: true });
    migrate(file);
    file.close();
    const running = await startServer(loadConfig({ SVC_PORT: '0', SVC_DB_PATH: dbPath, SVC_LOG_LEVEL: 'silent' }));
    const ping = await fetch(`${running.url}/api/ping`);
    assert.equal(ping.status, 200);
    await ping.arrayBuffer();
    await running.close();
    await assert.rejects(fetch(`${running.url}/api/ping`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
