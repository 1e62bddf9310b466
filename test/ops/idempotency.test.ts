import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';
import { PRODUCT, postHead, rawConnect } from './support.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

const products = (): string => `${server.url}/api/products`;
const countRows = (table: string, where?: string): Promise<number> => server.database.countRows(table, where);
const DAY_MS = 24 * 60 * 60 * 1000;

test('a retry with the same key and body replays the stored response and creates nothing', async () => {
  const before = await countRows('products');
  const first = await postJson(products(), PRODUCT, { 'idempotency-key': 'replay-1' });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const firstBody = await first.text();
  // The same JSON value spelled differently is the same request.
  const retry = await postJson(products(), `{ "priceInCents": 1999,\n "name": "Desk lamp" }`, { 'idempotency-key': 'replay-1' });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(retry.headers.get('location'), first.headers.get('location'));
  assert.equal(retry.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(retry.headers.get('x-frame-options'), 'DENY');
  assert.equal(await retry.text(), firstBody);
  assert.equal(await countRows('products'), before + 1);
});

test('the same key with another body is 422 idempotency_key_reused', async () => {
  const first = await postJson(products(), PRODUCT, { 'idempotency-key': 'reuse-1' });
  assert.equal(first.status, 201);
  await first.arrayBuffer();
  const other = await postJson(products(), { ...PRODUCT, priceInCents: 1 }, { 'idempotency-key': 'reuse-1' });
  assert.equal(other.status, 422);
  assert.equal(((await other.json()) as { code: string }).code, 'idempotency_key_reused');
});

test('a key is scoped to its method and path', async () => {
  const product = await postJson(products(), PRODUCT, { 'idempotency-key': 'scope-1' });
  const workspace = await postJson(`${server.url}/api/workspaces`, { name: 'Acme' }, { 'idempotency-key': 'scope-1' });
  assert.equal(product.status, 201);
  assert.equal(workspace.status, 201);
  assert.equal(workspace.headers.get('idempotent-replayed'), null);
  assert.match(workspace.headers.get('location') ?? '', /^\/api\/workspaces\/\d+$/);
  await Promise.all([product.arrayBuffer(), workspace.arrayBuffer()]);
});

test('a request with a key that is still being processed gets 409 idempotency_key_in_use', async () => {
  const body = JSON.stringify(PRODUCT);
  const slow = await rawConnect(server.url);
  // Headers and half the body: the first request holds the key while its body is still arriving.
  slow.socket.write(postHead('/api/products', Buffer.byteLength(body), { 'Idempotency-Key': 'in-flight-1' }) + body.slice(0, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await postJson(products(), PRODUCT, { 'idempotency-key': 'in-flight-1' });
  assert.equal(second.status, 409);
  assert.equal(((await second.json()) as { code: string }).code, 'idempotency_key_in_use');
  slow.socket.write(body.slice(5));
  const first = await slow.next();
  assert.equal(first.status, 201);
  slow.socket.destroy();
  const retry = await postJson(products(), PRODUCT, { 'idempotency-key': 'in-flight-1' });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(await retry.text(), first.body);
});

/** Sends a POST with a raw Idempotency-Key value (node:http allows bytes fetch would refuse). */
function postWithKey(key: string): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const req = request(products(), { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(text) as { code: string }).code }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(PRODUCT));
  });
}

test('a malformed key is 400 invalid_header and creates nothing', async () => {
  const before = await countRows('products');
  const malformed = ['', 'k'.repeat(256), 'caf\u00e9', 'has space', 'tab\there', '\u00ff'];
  for (const key of malformed) assert.deepEqual(await postWithKey(key), { status: 400, code: 'invalid_header' }, JSON.stringify(key));
  assert.equal(await countRows('products'), before);
  // The bounds themselves are fine: 255 visible ASCII characters, and every one of them.
  const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  for (const key of ['k'.repeat(255), visible, '!']) assert.equal((await postWithKey(key)).status, 201, key);
});

test('a control character in the key never creates anything', async () => {
  const connection = await rawConnect(server.url);
  const body = JSON.stringify(PRODUCT);
  connection.socket.write(postHead('/api/products', Buffer.byteLength(body), { 'Idempotency-Key': 'ctl\u0001key' }) + body);
  const response = await connection.next();
  connection.socket.destroy();
  assert.equal(response.status, 400);
});

test('a key lives 24 hours from its first request: replayed a minute before, a new write a millisecond after', async () => {
  const sentAt = Date.now();
  const first = await postJson(products(), PRODUCT, { 'idempotency-key': 'lifetime-1' });
  const answeredAt = Date.now();
  assert.equal(first.status, 201);
  const firstBody = await first.text();
  const [[stored] = []] = await server.database.sql("SELECT expires_at FROM idempotency_keys WHERE key = 'lifetime-1'");
  const expiresAt = Number(stored);
  assert.ok(expiresAt >= sentAt + DAY_MS && expiresAt <= answeredAt + DAY_MS, `stored to expire ${expiresAt - answeredAt} ms after the answer`);
  // Age the record behind the server's back to one minute before the end of its day.
  await server.database.sql(`UPDATE idempotency_keys SET expires_at = expires_at - ${DAY_MS - 60_000} WHERE key = 'lifetime-1'`);
  const replay = await postJson(products(), PRODUCT, { 'idempotency-key': 'lifetime-1' });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(await replay.text(), firstBody);
  // And past it: the record now ends a millisecond before the first request was sent.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = expires_at - 60001 WHERE key = 'lifetime-1'");
  const before = await countRows('products');
  const afresh = await postJson(products(), PRODUCT, { 'idempotency-key': 'lifetime-1' });
  assert.equal(afresh.status, 201);
  assert.equal(afresh.headers.get('idempotent-replayed'), null);
  assert.notEqual(await afresh.text(), firstBody);
  assert.equal(await countRows('products'), before + 1);
});

test('an expired key (24 h) is purged by later writes and may be used afresh', async () => {
  const first = await postJson(products(), PRODUCT, { 'idempotency-key': 'expiring-1' });
  const firstBody = (await first.json()) as { id: number };
  // Age the stored key past its 24 hours, as a day of waiting would.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = expires_at - 86400001 WHERE key = 'expiring-1'");
  const again = await postJson(products(), PRODUCT, { 'idempotency-key': 'expiring-1' });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), null);
  assert.notEqual(((await again.json()) as { id: number }).id, firstBody.id);
  // Expired rows of other keys go away as keyed writes happen, without any job.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = 1 WHERE key LIKE 'replay-%' OR key LIKE 'reuse-%'");
  assert.ok(await countRows('idempotency_keys', 'expires_at = 1') >= 2);
  const trigger = await postJson(products(), PRODUCT, { 'idempotency-key': 'purge-trigger' });
  assert.equal(trigger.status, 201);
  await trigger.arrayBuffer();
  assert.equal(await countRows('idempotency_keys', 'expires_at = 1'), 0);
});

test('a client that disconnects mid-body releases its key', async () => {
  const body = JSON.stringify(PRODUCT);
  const abandoned = await rawConnect(server.url);
  abandoned.socket.write(postHead('/api/products', Buffer.byteLength(body), { 'Idempotency-Key': 'abandoned-1' }) + body.slice(0, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
  abandoned.socket.destroy();
  let status = 0;
  // The server notices the reset in its next I/O turn; until then the key is (rightly) still in use.
  for (let attempt = 0; attempt < 50 && status !== 201; attempt++) {
    const retry = await postJson(products(), PRODUCT, { 'idempotency-key': 'abandoned-1' });
    status = retry.status;
    await retry.arrayBuffer();
    if (status === 409) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(status, 201);
});
