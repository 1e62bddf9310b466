import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { ConformanceRun } from './conformance-run.ts';

// The keys endpoints (SVC_AUTH=keys): every operation, every status and every client error of theirs.
type Json = Record<string, unknown>;
const PATH = '/api/keys';
const ITEM = '/api/keys/{id}';

/** Registers the tests of the keys endpoints' successes, 304, 404 and 412. */
export function keyLifecycleTests(run: ConformanceRun): void {
  test('/api/keys: make (the key shown once), list pages, read, HEAD and 304 conform', async () => {
    const made = await run.expectStatus('POST', PATH, run.post(PATH, { name: 'nightly report', scopes: ['read'], expiresAt: '2099-01-31T12:00:00+01:00' }), 201);
    assert.match(String(made['key']), /^svc_/);
    await run.expectStatus('POST', PATH, run.post(PATH, { name: 'ci deploys', scopes: ['write', 'read'], expiresAt: null }), 201);
    const page = await run.get(`${PATH}?limit=1`);
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    await run.expectStatus('GET', PATH, page, 200);
    assert.ok(link !== undefined, 'a Link to the next page');
    await run.expectStatus('GET', PATH, run.get(link), 200);
    await run.expectStatus('HEAD', PATH, run.get(PATH, { method: 'HEAD' }), 200);
    const url = `${PATH}/${String(made['id'])}`;
    const { key: _key, ...apiKey } = made;
    assert.deepEqual(await run.expectStatus('GET', ITEM, run.get(url), 200), apiKey);
    // The key's tag as the run's version makes it (a version that shows it otherwise tags it otherwise).
    const etag = (await run.get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
    await run.expectStatus('HEAD', ITEM, run.get(url, { method: 'HEAD' }), 200);
    await run.expectStatus('GET', ITEM, run.get(url, { headers: { 'if-none-match': etag } }), 304);
    await run.expectStatus('HEAD', ITEM, run.get(url, { method: 'HEAD', headers: { 'if-none-match': `W/${etag}` } }), 304);
  });

  test('/api/keys/{id}: revoke, revoke again, 412 and 404 conform', async () => {
    const made = await run.expectStatus('POST', PATH, run.post(PATH, { name: 'to revoke', scopes: ['admin'] }), 201);
    const url = `${PATH}/${String(made['id'])}`;
    const etag = (await run.get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
    await run.expectStatus('GET', ITEM, run.get(url, { headers: { 'if-match': '"2"' } }), 412);
    await run.expectStatus('DELETE', ITEM, run.remove(url, { 'if-match': '"2"' }), 412);
    await run.expectStatus('DELETE', ITEM, run.remove(url, { 'if-none-match': '*' }), 412);
    await run.expectStatus('DELETE', ITEM, run.remove(url, { 'if-match': etag }), 204);
    await run.expectStatus('DELETE', ITEM, run.remove(url), 204);
    const revoked = await run.expectStatus('GET', ITEM, run.get(url), 200);
    assert.equal(typeof revoked['revokedAt'], 'string');
    await run.expectStatus('GET', ITEM, run.get(url, { headers: { 'if-none-match': etag } }), 200);
    for (const id of ['AAAAAAAAAAAA', 'abc', String(made['key'])]) {
      await run.expectStatus('GET', ITEM, run.get(`${PATH}/${encodeURIComponent(id)}`), 404);
      await run.expectStatus('DELETE', ITEM, run.remove(`${PATH}/${encodeURIComponent(id)}`), 404);
    }
  });
}

/** Registers the tests of a key's merge patch: its successes, 412, 404 and every client error. */
export function keyPatchTests(run: ConformanceRun): void {
  test('/api/keys/{id}: a merge patch of the name and the version, preconditions, and every client error conform', async () => {
    const made = await run.expectStatus('POST', PATH, run.post(PATH, { name: 'to move', scopes: ['read'] }), 201);
    const url = `${PATH}/${String(made['id'])}`;
    // The key's tag as the run's version makes it (a version that shows the key otherwise tags it otherwise).
    const etag = (await run.get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
    const moved = await run.expectStatus('PATCH', ITEM, run.patch(url, { apiVersion: '2026-12-05', name: 'moved' }, { 'if-match': etag }), 200);
    assert.equal(moved['name'], 'moved');
    await run.expectStatus('PATCH', ITEM, run.patch(url, {}), 200);
    await run.expectStatus('PATCH', ITEM, run.patch(url, { name: 'again' }, { 'if-match': etag }), 412);
    await run.expectStatus('PATCH', ITEM, run.patch(url, { name: 'again' }, { 'if-none-match': '*' }), 412);
    await run.expectStatus('PATCH', ITEM, run.patch('/api/keys/AAAAAAAAAAAA', { name: 'x' }), 404);
    for (const header of ['1', '*, "1"']) await run.expectStatus('PATCH', ITEM, run.patch(url, { name: 'x' }, { 'if-match': header }), 400);
    const auth = run.auth('PATCH');
    const send = (body: string | Buffer, headers: Record<string, string>) => fetch(`${run.url}${url}`, { method: 'PATCH', headers: { ...auth, ...headers }, body });
    await run.expectStatus('PATCH', ITEM, send('{"name":', { 'content-type': 'application/merge-patch+json' }), 400);
    await run.expectStatus('PATCH', ITEM, send('{}', { 'content-type': 'text/plain' }), 415);
    await run.expectStatus('PATCH', ITEM, send(gzipSync('{}'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 415);
    await run.expectStatus('PATCH', ITEM, run.patch(url, { name: 'x'.repeat(2_000) }), 413);
    const bodies: [unknown, string[]][] = [
      [{ name: null, apiVersion: 7 }, ['type']],
      [{ name: '', apiVersion: '2026-13-01', scopes: ['admin'] }, ['too_short', 'invalid_enum', 'unknown_field']],
      [{ name: 'x'.repeat(201) }, ['too_long']],
      [{ name: 'a\u0007b' }, ['invalid_characters']],
    ];
    for (const [body, codes] of bodies) {
      const problem = await run.expectStatus('PATCH', ITEM, run.patch(url, body), 422);
      assert.deepEqual([...new Set((problem['errors'] as Json[]).map((error) => error['code']))], codes, JSON.stringify(body));
    }
  });
}

/** Registers the tests of every client error of the keys endpoints, and every field error code of a new key. */
export function keyClientErrorTests(run: ConformanceRun): void {
  test('/api/keys: every client error of a list, a make, a read and a revoke conforms', async () => {
    const good = { name: 'x', scopes: ['read'] };
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'cursor=bad!']) await run.expectStatus('GET', PATH, run.get(`${PATH}?${query}`), 400);
    const refused = await run.expectStatus('POST', PATH, run.post(PATH, good, { 'idempotency-key': 'retry-1' }), 400);
    assert.equal(refused['code'], 'invalid_header');
    await run.expectStatus('POST', PATH, run.post(PATH, '{"name":'), 400);
    await run.expectStatus('POST', PATH, run.post(PATH, ''), 400);
    await run.expectStatus('POST', PATH, run.post(PATH, { ...good, name: 'x'.repeat(2_000) }), 413);
    const auth = run.auth('POST');
    await run.expectStatus('POST', PATH, fetch(`${run.url}${PATH}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' }), 415);
    const gzipped = { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(good)) };
    await run.expectStatus('POST', PATH, fetch(`${run.url}${PATH}`, gzipped), 415);
    const url = `${PATH}/${run.keys.read.id}`;
    for (const header of ['1', '*, "1"']) {
      await run.expectStatus('GET', ITEM, run.get(url, { headers: { 'if-none-match': header } }), 400);
      await run.expectStatus('GET', ITEM, run.get(url, { headers: { 'if-match': header } }), 400);
      await run.expectStatus('DELETE', ITEM, run.remove(url, { 'if-match': header }), 400);
    }
  });

  test('every field error code of a new key is produced, duplicate included', async () => {
    const bodies: [unknown, string[]][] = [
      [{}, ['required']],
      [{ name: 7, scopes: 'admin', expiresAt: 'next week' }, ['type']],
      [{ name: '', scopes: [] }, ['too_short']],
      [{ name: 'x'.repeat(201), scopes: ['root', 'read', 'read'] }, ['too_long', 'invalid_enum', 'duplicate']],
      [{ name: 'a\u0007b', scopes: ['read'], expiresAt: '2000-01-01T00:00:00Z', owner: 'me' }, ['invalid_characters', 'too_small', 'unknown_field']],
      [{ name: 'late', scopes: ['read'], expiresAt: '9999-12-31T23:59:59.999-01:00' }, ['too_large']],
    ];
    for (const [body, codes] of bodies) {
      const problem = await run.expectStatus('POST', PATH, run.post(PATH, body), 422);
      assert.deepEqual([...new Set((problem['errors'] as Json[]).map((error) => error['code']))], codes, JSON.stringify(body));
    }
  });
}
