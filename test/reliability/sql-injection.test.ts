import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';
import { countRows, integrityCheck } from './row-rules.ts';

// SQL injection must be inert everywhere a client can put text: stored and returned verbatim
// in fields, refused (400/404/422) in parameters, keys and path segments, and never executed.

const PAYLOADS = [
  "'); DROP TABLE products;--",
  "Robert'); DROP TABLE workspaces; --",
  "' OR '1'='1",
  '" OR ""="',
  '1; DELETE FROM products',
  "' UNION SELECT name, sql, 1, 1, 1 FROM sqlite_master --",
  "'||(SELECT sqlite_version())||'",
  "x'; ATTACH DATABASE '/tmp/pwned.db' AS pwned; --",
  '*/ DROP TABLE products; /*',
  "'; PRAGMA writable_schema = 1; --",
  '?1 ?2 :name @name $name',
  '%_\\ LIKE ESCAPE',
  "admin'--",
  "1' AND randomblob(1000000000) AND '1",
];

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

const created = { products: 0, workspaces: 0 };

test('injection in names is stored and returned verbatim, on create, by id and in lists', async () => {
  for (const payload of PAYLOADS) {
    for (const resource of ['products', 'workspaces'] as const) {
      const body = resource === 'products' ? { name: payload, priceInCents: 1 } : { name: payload };
      const response = await postJson(`${server.url}/api/${resource}`, body);
      assert.equal(response.status, 201, `${resource}: ${payload}`);
      const item = (await response.json()) as { id: number; name: string };
      assert.equal(item.name, payload);
      created[resource]++;
      const read = (await (await fetch(`${server.url}/api/${resource}/${item.id}`)).json()) as { name: string };
      assert.equal(read.name, payload);
    }
  }
  const list = (await (await fetch(`${server.url}/api/products?limit=200`)).json()) as { name: string }[];
  assert.deepEqual(list.map((p) => p.name).reverse(), PAYLOADS);
});

test('injection in other fields, in member names and in Idempotency-Key is refused or inert', async () => {
  for (const payload of PAYLOADS) {
    const asPrice = await postJson(`${server.url}/api/products`, { name: 'n', priceInCents: payload, status: payload });
    assert.equal(asPrice.status, 422);
    const asMember = await postJson(`${server.url}/api/products`, { name: 'n', priceInCents: 1, [payload]: 1 });
    assert.equal(asMember.status, 422);
    const problem = (await asMember.json()) as { errors: { code: string }[] };
    assert.equal(problem.errors[0]?.code, 'unknown_field');
  }
  // Keys are visible ASCII without spaces: the nearest thing to an injection a valid key can carry.
  const key = "k');DROP/**/TABLE/**/idempotency_keys;--";
  const first = await postJson(`${server.url}/api/products`, { name: 'keyed', priceInCents: 2 }, { 'idempotency-key': key });
  const again = await postJson(`${server.url}/api/products`, { name: 'keyed', priceInCents: 2 }, { 'idempotency-key': key });
  assert.equal(first.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await again.json(), await first.json());
  created.products++;
});

test('injection in a patched name is stored verbatim; in other patched fields and If-Match it is refused', async () => {
  const made = await postJson(`${server.url}/api/products`, { name: 'to patch', priceInCents: 1 });
  const { id } = (await made.json()) as { id: number };
  created.products++;
  const patch = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${server.url}/api/products/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', ...headers }, body: JSON.stringify(body) });
  for (const payload of PAYLOADS) {
    const renamed = await patch({ name: payload });
    assert.equal(renamed.status, 200, payload);
    assert.equal(((await renamed.json()) as { name: string }).name, payload);
    assert.equal((await patch({ priceInCents: payload })).status, 422);
    assert.equal((await patch({ [payload]: 1 })).status, 422);
    // Quoted, with the characters a tag may not hold removed, it is a well-formed tag that matches
    // nothing; as it is, it is malformed.
    assert.equal((await patch({ name: 'x' }, { 'if-match': `"${payload.replace(/[^\x21\x23-\x7e]/g, '')}"` })).status, 412);
    assert.equal((await patch({ name: 'x' }, { 'if-match': payload })).status, 400);
  }
  const read = (await (await fetch(`${server.url}/api/products/${id}`)).json()) as { name: string };
  assert.equal(read.name, PAYLOADS.at(-1));
});

test('injection in limit, cursor, status and {id} is 400 or 404, never a query', async () => {
  for (const payload of PAYLOADS) {
    const encoded = encodeURIComponent(payload);
    for (const resource of ['products', 'workspaces']) {
      assert.equal((await fetch(`${server.url}/api/${resource}?limit=${encoded}`)).status, 400);
      assert.equal((await fetch(`${server.url}/api/${resource}?cursor=${encoded}`)).status, 400);
      const forged = Buffer.from(`${resource}:1 ${payload}`).toString('base64url');
      assert.equal((await fetch(`${server.url}/api/${resource}?cursor=${forged}`)).status, 400);
      assert.equal((await fetch(`${server.url}/api/${resource}/${encoded}`)).status, 404);
      assert.equal((await fetch(`${server.url}/api/${resource}/1${encoded}`)).status, 404);
      assert.equal((await fetch(`${server.url}/api/${resource}/${encoded}`, { method: 'DELETE' })).status, 404);
    }
    assert.equal((await fetch(`${server.url}/api/products?status=${encoded}`)).status, 400);
  }
});

test('afterwards every table is there, holds exactly what was created, and is sound', () => {
  const db = new DatabaseSync(server.dbPath, { readOnly: true });
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row['name']);
  db.close();
  // sqlite_sequence is SQLite's own: AUTOINCREMENT keeps the highest id ever given there.
  assert.deepEqual(tables, [
    'api_keys', 'events', 'events_horizon', 'idempotency_keys', 'products', 'sqlite_sequence', 'webhook_deliveries', 'webhooks', 'workspaces',
  ]);
  assert.equal(countRows(server.dbPath, 'products'), created.products);
  assert.equal(countRows(server.dbPath, 'workspaces'), created.workspaces);
  assert.equal(countRows(server.dbPath, 'idempotency_keys'), 1);
  // Every create recorded its one created event (types 1 and 4), whatever the names held.
  const events = new DatabaseSync(server.dbPath, { readOnly: true });
  const createdEvents = events.prepare('SELECT count(*) AS n FROM events WHERE type IN (1, 4)').get()?.['n'];
  events.close();
  assert.equal(createdEvents, created.products + created.workspaces);
  assert.deepEqual(integrityCheck(server.dbPath), ['ok']);
});
