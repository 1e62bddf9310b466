import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { continuedRequest } from '../support/raw-http.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
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

test('a key in flight holds only its own method and path: the same key on another path is served meanwhile', async () => {
  const body = JSON.stringify(PRODUCT);
  const head = ['POST /api/products HTTP/1.1', 'Host: localhost', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Idempotency-Key: in-flight-2', 'Connection: close'];
  // Held in flight: its headers are in, its body not yet sent.
  const slow = await continuedRequest(server.url, head.join('\r\n'), body);
  const same = await postJson(products(), PRODUCT, { 'idempotency-key': 'in-flight-2' });
  assert.equal(same.status, 409, 'the first request is in flight');
  await same.arrayBuffer();
  const workspace = await postJson(`${server.url}/api/workspaces`, { name: 'Acme' }, { 'idempotency-key': 'in-flight-2' });
  assert.equal(workspace.status, 201);
  assert.match(workspace.headers.get('location') ?? '', /^\/api\/workspaces\/\d+$/);
  await workspace.arrayBuffer();
  const first = await slow.finish();
  assert.equal(first.status, 201);
  assert.match(first.headers['location'] ?? '', /^\/api\/products\/\d+$/);
});

/** Sends a request with a raw Idempotency-Key value (node:http allows bytes fetch would refuse). */
function sendWithKey(method: 'POST' | 'PATCH' | 'DELETE', url: string, key: string, body?: unknown): Promise<{ status: number; text: string }> {
  const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  const headers = body === undefined ? { 'idempotency-key': key } : { 'content-type': type, 'idempotency-key': key };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function postWithKey(key: string): Promise<{ status: number; code: string }> {
  const { status, text } = await sendWithKey('POST', products(), key, PRODUCT);
  return { status, code: (JSON.parse(text) as { code: string }).code };
}

const MALFORMED_KEYS = ['', 'k'.repeat(256), 'caf\u00e9', 'has space', 'tab\there', '\u00ff'];

test('a malformed key is 400 invalid_header and creates nothing', async () => {
  const before = await countRows('products');
  const keysBefore = await countRows('idempotency_keys');
  for (const key of MALFORMED_KEYS) assert.deepEqual(await postWithKey(key), { status: 400, code: 'invalid_header' }, JSON.stringify(key));
  assert.equal(await countRows('products'), before);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
  // The bounds themselves are fine: 255 visible ASCII characters, and every one of them.
  const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  for (const key of ['k'.repeat(255), visible, '!']) assert.equal((await postWithKey(key)).status, 201, key);
});

test('a control character in the key never creates anything', async () => {
  const before = await countRows('products');
  const keysBefore = await countRows('idempotency_keys');
  const connection = await rawConnect(server.url);
  const body = JSON.stringify(PRODUCT);
  connection.socket.write(postHead('/api/products', Buffer.byteLength(body), { 'Idempotency-Key': 'ctl\u0001key' }) + body);
  const response = await connection.next();
  connection.socket.destroy();
  // node:http's parser refuses the whole request before any handler sees it.
  assert.equal(response.status, 400);
  assert.equal((JSON.parse(response.body) as { code: string }).code, 'bad_request');
  assert.equal(await countRows('products'), before);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
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

// docs/api.md: Idempotency-Key applies to POST only and is ignored on PATCH and DELETE, which If-Match
// already makes safe to retry: a keyed PATCH or DELETE is never replayed, never stored, never refused.
async function createdProduct(): Promise<string> {
  const created = await postJson(products(), PRODUCT);
  assert.equal(created.status, 201);
  await created.arrayBuffer();
  return `${server.url}${created.headers.get('location')}`;
}

test('Idempotency-Key on PATCH is ignored: every PATCH with the same key applies, none is replayed or stored', async () => {
  const url = await createdProduct();
  const keysBefore = await countRows('idempotency_keys');
  const versions: [string, number][] = [];
  // Another body, then the first body again: neither is 422 reused nor a replay of an earlier answer.
  for (const name of ['First', 'Second', 'First']) {
    const answer = await patchJson(url, { name }, { 'idempotency-key': 'patch-1' });
    assert.equal(answer.status, 200, name);
    assert.equal(answer.headers.get('idempotent-replayed'), null);
    const body = (await answer.json()) as { name: string };
    versions.push([body.name, Number(JSON.parse(answer.headers.get('etag') ?? 'null'))]);
  }
  assert.deepEqual(versions, [['First', 2], ['Second', 3], ['First', 4]]);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
});

test('Idempotency-Key on DELETE is ignored: a second DELETE with the same key is 404, not a replayed 204', async () => {
  const url = await createdProduct();
  const keysBefore = await countRows('idempotency_keys');
  const first = await fetch(url, { method: 'DELETE', headers: { 'idempotency-key': 'delete-1' } });
  assert.equal(first.status, 204);
  const second = await fetch(url, { method: 'DELETE', headers: { 'idempotency-key': 'delete-1' } });
  assert.equal(second.status, 404);
  assert.equal(((await second.json()) as { code: string }).code, 'not_found');
  assert.equal(await countRows('idempotency_keys'), keysBefore);
});

test('a malformed Idempotency-Key on PATCH or DELETE does not matter either: the change applies', async () => {
  for (const key of MALFORMED_KEYS) {
    const url = await createdProduct();
    const patched = await sendWithKey('PATCH', url, key, { name: 'Patched' });
    assert.equal(patched.status, 200, `PATCH with ${JSON.stringify(key)}: ${patched.text}`);
    assert.equal((JSON.parse(patched.text) as { name: string }).name, 'Patched');
    const deleted = await sendWithKey('DELETE', url, key);
    assert.deepEqual(deleted, { status: 204, text: '' }, `DELETE with ${JSON.stringify(key)}`);
    const gone = await fetch(url);
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  }
});
