import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { continuedRequest } from '../support/raw-http.ts';
import { ALL_RESOURCES, changingPatch, validBody } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { postHead, rawConnect } from './support.ts';

// Idempotent creates (docs/api.md, Idempotency-Key): the mechanism on one sample resource, a resource
// without rules of its own so that any change of it is allowed; and a replay of every resource served.
const SAMPLE = ALL_RESOURCES.find((resource) => resource.rules.length === 0) ?? assert.fail('a resource without rules');
const OTHER = ALL_RESOURCES.find((resource) => resource !== SAMPLE) ?? assert.fail('a second resource');
const BODY = validBody(SAMPLE);

let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

const collection = (): string => `${server.url}${SAMPLE.path}`;
const countRows = (table: string, where?: string): Promise<number> => server.database.countRows(table, where);
const DAY_MS = 24 * 60 * 60 * 1000;

test('a retry with the same key and body replays the stored response and creates nothing', async () => {
  const before = await countRows(SAMPLE.plural);
  const first = await postJson(collection(), BODY, { 'idempotency-key': 'replay-1' });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const firstBody = await first.text();
  // The same JSON value spelled differently (members in another order, white space) is the same request.
  const respelled = JSON.stringify(Object.fromEntries(Object.entries(BODY).reverse()), null, 1);
  assert.notEqual(respelled, JSON.stringify(BODY));
  const retry = await postJson(collection(), respelled, { 'idempotency-key': 'replay-1' });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(retry.headers.get('location'), first.headers.get('location'));
  assert.equal(retry.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(retry.headers.get('x-frame-options'), 'DENY');
  assert.equal(await retry.text(), firstBody);
  assert.equal(await countRows(SAMPLE.plural), before + 1);
});

test('every resource served replays a keyed create: the same answer, byte for byte, and one row', async () => {
  for (const resource of ALL_RESOURCES) {
    const url = `${server.url}${resource.path}`;
    const before = await countRows(resource.plural);
    const first = await postJson(url, validBody(resource, 3), { 'idempotency-key': `every-${resource.plural}` });
    assert.equal(first.status, 201, resource.plural);
    const firstBody = await first.text();
    const retry = await postJson(url, validBody(resource, 3), { 'idempotency-key': `every-${resource.plural}` });
    assert.deepEqual([retry.status, retry.headers.get('idempotent-replayed'), retry.headers.get('location')], [201, 'true', first.headers.get('location')], resource.plural);
    assert.equal(await retry.text(), firstBody);
    const reused = await postJson(url, validBody(resource, 4), { 'idempotency-key': `every-${resource.plural}` });
    assert.deepEqual([reused.status, ((await reused.json()) as { code: string }).code], [422, 'idempotency_key_reused'], resource.plural);
    assert.equal(await countRows(resource.plural), before + 1, resource.plural);
  }
});

test('the same key with another body is 422 idempotency_key_reused', async () => {
  const first = await postJson(collection(), BODY, { 'idempotency-key': 'reuse-1' });
  assert.equal(first.status, 201);
  await first.arrayBuffer();
  const other = await postJson(collection(), validBody(SAMPLE, 1), { 'idempotency-key': 'reuse-1' });
  assert.equal(other.status, 422);
  assert.equal(((await other.json()) as { code: string }).code, 'idempotency_key_reused');
});

test('a key is scoped to its method and path', async () => {
  const first = await postJson(collection(), BODY, { 'idempotency-key': 'scope-1' });
  const other = await postJson(`${server.url}${OTHER.path}`, validBody(OTHER), { 'idempotency-key': 'scope-1' });
  assert.equal(first.status, 201);
  assert.equal(other.status, 201);
  assert.equal(other.headers.get('idempotent-replayed'), null);
  assert.match(other.headers.get('location') ?? '', new RegExp(`^${OTHER.path}/\\d+$`));
  await Promise.all([first.arrayBuffer(), other.arrayBuffer()]);
});

test('a request with a key that is still being processed gets 409 idempotency_key_in_use', async () => {
  const body = JSON.stringify(BODY);
  const slow = await rawConnect(server.url);
  // Headers and half the body: the first request holds the key while its body is still arriving.
  slow.socket.write(postHead(SAMPLE.path, Buffer.byteLength(body), { 'Idempotency-Key': 'in-flight-1' }) + body.slice(0, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await postJson(collection(), BODY, { 'idempotency-key': 'in-flight-1' });
  assert.equal(second.status, 409);
  assert.equal(((await second.json()) as { code: string }).code, 'idempotency_key_in_use');
  slow.socket.write(body.slice(5));
  const first = await slow.next();
  assert.equal(first.status, 201);
  slow.socket.destroy();
  const retry = await postJson(collection(), BODY, { 'idempotency-key': 'in-flight-1' });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(await retry.text(), first.body);
});

test('a key in flight holds only its own method and path: the same key on another path is served meanwhile', async () => {
  const body = JSON.stringify(BODY);
  const head = [`POST ${SAMPLE.path} HTTP/1.1`, 'Host: localhost', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Idempotency-Key: in-flight-2', 'Connection: close'];
  // Held in flight: its headers are in, its body not yet sent.
  const slow = await continuedRequest(server.url, head.join('\r\n'), body);
  const same = await postJson(collection(), BODY, { 'idempotency-key': 'in-flight-2' });
  assert.equal(same.status, 409, 'the first request is in flight');
  await same.arrayBuffer();
  const other = await postJson(`${server.url}${OTHER.path}`, validBody(OTHER), { 'idempotency-key': 'in-flight-2' });
  assert.equal(other.status, 201);
  assert.match(other.headers.get('location') ?? '', new RegExp(`^${OTHER.path}/\\d+$`));
  await other.arrayBuffer();
  const first = await slow.finish();
  assert.equal(first.status, 201);
  assert.match(first.headers['location'] ?? '', new RegExp(`^${SAMPLE.path}/\\d+$`));
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
  const { status, text } = await sendWithKey('POST', collection(), key, BODY);
  return { status, code: (JSON.parse(text) as { code: string }).code };
}

const MALFORMED_KEYS = ['', 'k'.repeat(256), 'caf\u00e9', 'has space', 'tab\there', '\u00ff'];

test('a malformed key is 400 invalid_header and creates nothing', async () => {
  const before = await countRows(SAMPLE.plural);
  const keysBefore = await countRows('idempotency_keys');
  for (const key of MALFORMED_KEYS) assert.deepEqual(await postWithKey(key), { status: 400, code: 'invalid_header' }, JSON.stringify(key));
  assert.equal(await countRows(SAMPLE.plural), before);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
  // The bounds themselves are fine: 255 visible ASCII characters, and every one of them.
  const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  for (const key of ['k'.repeat(255), visible, '!']) assert.equal((await postWithKey(key)).status, 201, key);
});

test('a control character in the key never creates anything', async () => {
  const before = await countRows(SAMPLE.plural);
  const keysBefore = await countRows('idempotency_keys');
  const connection = await rawConnect(server.url);
  const body = JSON.stringify(BODY);
  connection.socket.write(postHead(SAMPLE.path, Buffer.byteLength(body), { 'Idempotency-Key': 'ctl\u0001key' }) + body);
  const response = await connection.next();
  connection.socket.destroy();
  // node:http's parser refuses the whole request before any handler sees it.
  assert.equal(response.status, 400);
  assert.equal((JSON.parse(response.body) as { code: string }).code, 'bad_request');
  assert.equal(await countRows(SAMPLE.plural), before);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
});

test('a key lives 24 hours from its first request: replayed a minute before, a new write a millisecond after', async () => {
  const sentAt = Date.now();
  const first = await postJson(collection(), BODY, { 'idempotency-key': 'lifetime-1' });
  const answeredAt = Date.now();
  assert.equal(first.status, 201);
  const firstBody = await first.text();
  const [[stored] = []] = await server.database.sql("SELECT expires_at FROM idempotency_keys WHERE key = 'lifetime-1'");
  const expiresAt = Number(stored);
  assert.ok(expiresAt >= sentAt + DAY_MS && expiresAt <= answeredAt + DAY_MS, `stored to expire ${expiresAt - answeredAt} ms after the answer`);
  // Age the record behind the server's back to one minute before the end of its day.
  await server.database.sql(`UPDATE idempotency_keys SET expires_at = expires_at - ${DAY_MS - 60_000} WHERE key = 'lifetime-1'`);
  const replay = await postJson(collection(), BODY, { 'idempotency-key': 'lifetime-1' });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(await replay.text(), firstBody);
  // And past it: the record now ends a millisecond before the first request was sent.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = expires_at - 60001 WHERE key = 'lifetime-1'");
  const before = await countRows(SAMPLE.plural);
  const afresh = await postJson(collection(), BODY, { 'idempotency-key': 'lifetime-1' });
  assert.equal(afresh.status, 201);
  assert.equal(afresh.headers.get('idempotent-replayed'), null);
  assert.notEqual(await afresh.text(), firstBody);
  assert.equal(await countRows(SAMPLE.plural), before + 1);
});

test('an expired key (24 h) is purged by later writes and may be used afresh', async () => {
  const first = await postJson(collection(), BODY, { 'idempotency-key': 'expiring-1' });
  const firstBody = (await first.json()) as { id: number };
  // Age the stored key past its 24 hours, as a day of waiting would.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = expires_at - 86400001 WHERE key = 'expiring-1'");
  const again = await postJson(collection(), BODY, { 'idempotency-key': 'expiring-1' });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), null);
  assert.notEqual(((await again.json()) as { id: number }).id, firstBody.id);
  // Expired rows of other keys go away as keyed writes happen, without any job.
  await server.database.sql("UPDATE idempotency_keys SET expires_at = 1 WHERE key LIKE 'replay-%' OR key LIKE 'reuse-%'");
  assert.ok(await countRows('idempotency_keys', 'expires_at = 1') >= 2);
  const trigger = await postJson(collection(), BODY, { 'idempotency-key': 'purge-trigger' });
  assert.equal(trigger.status, 201);
  await trigger.arrayBuffer();
  assert.equal(await countRows('idempotency_keys', 'expires_at = 1'), 0);
});

test('a client that disconnects mid-body releases its key', async () => {
  const body = JSON.stringify(BODY);
  const abandoned = await rawConnect(server.url);
  abandoned.socket.write(postHead(SAMPLE.path, Buffer.byteLength(body), { 'Idempotency-Key': 'abandoned-1' }) + body.slice(0, 5));
  await new Promise((resolve) => setTimeout(resolve, 100));
  abandoned.socket.destroy();
  let status = 0;
  // The server notices the reset in its next I/O turn; until then the key is (rightly) still in use.
  for (let attempt = 0; attempt < 50 && status !== 201; attempt++) {
    const retry = await postJson(collection(), BODY, { 'idempotency-key': 'abandoned-1' });
    status = retry.status;
    await retry.arrayBuffer();
    if (status === 409) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(status, 201);
});

// docs/api.md: Idempotency-Key applies to POST only and is ignored on PATCH and DELETE, which If-Match
// already makes safe to retry: a keyed PATCH or DELETE is never replayed, never stored, never refused.
async function created(): Promise<string> {
  const created = await postJson(collection(), BODY);
  assert.equal(created.status, 201);
  await created.arrayBuffer();
  return `${server.url}${created.headers.get('location')}`;
}

test('Idempotency-Key on PATCH is ignored: every PATCH with the same key applies, none is replayed or stored', async () => {
  const url = await created();
  const keysBefore = await countRows('idempotency_keys');
  const versions: [string, number][] = [];
  // Another body, then the first body again: neither is 422 reused nor a replay of an earlier answer.
  const [first, second] = [changingPatch(SAMPLE, 0), changingPatch(SAMPLE, 1)];
  for (const patch of [first, second, first]) {
    const answer = await patchJson(url, patch, { 'idempotency-key': 'patch-1' });
    assert.equal(answer.status, 200, JSON.stringify(patch));
    assert.equal(answer.headers.get('idempotent-replayed'), null);
    const body = (await answer.json()) as Record<string, unknown>;
    versions.push([JSON.stringify(Object.keys(patch).map((field) => body[field])), Number(JSON.parse(answer.headers.get('etag') ?? 'null'))]);
  }
  const values = (patch: Record<string, unknown>): string => JSON.stringify(Object.values(patch));
  assert.deepEqual(versions, [[values(first), 2], [values(second), 3], [values(first), 4]]);
  assert.equal(await countRows('idempotency_keys'), keysBefore);
});

test('Idempotency-Key on DELETE is ignored: a second DELETE with the same key is 404, not a replayed 204', async () => {
  const url = await created();
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
    const url = await created();
    const patch = changingPatch(SAMPLE);
    const patched = await sendWithKey('PATCH', url, key, patch);
    assert.equal(patched.status, 200, `PATCH with ${JSON.stringify(key)}: ${patched.text}`);
    const body = JSON.parse(patched.text) as Record<string, unknown>;
    for (const [field, value] of Object.entries(patch)) assert.deepEqual(body[field], value, field);
    const deleted = await sendWithKey('DELETE', url, key);
    assert.deepEqual(deleted, { status: 204, text: '' }, `DELETE with ${JSON.stringify(key)}`);
    const gone = await fetch(url);
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  }
});
