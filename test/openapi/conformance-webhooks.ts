import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bearer } from '../support/keys.ts';
import { validBody } from '../support/resources.ts';
import { patchJson, postJson, startTestServer } from '../support/server.ts';
import { eventually, startReceiver } from '../support/webhook-receiver.ts';
import { type ConformanceRun, itemsOf, TOKEN } from './conformance-run.ts';

// The webhook endpoints (every mode, `admin`): every operation, every status and every client error of theirs.
type Json = Record<string, unknown>;
type Headers = Record<string, string>;
const PATH = '/api/webhooks';
const ITEM = '/api/webhooks/{id}';
const ROTATE = '/api/webhooks/{id}/rotate-secret';
const LOG = '/api/webhooks/{id}/deliveries';
const RETRY = '/api/webhooks/{id}/deliveries/{eventId}/retry';

// The credential an admin operation needs in each mode.
function admin(run: ConformanceRun): Headers {
  if (run.mode === 'keys') return bearer(run.keys.admin.key);
  if (run.mode === 'jwt') return bearer(run.credentials.admin ?? '');
  // SVC_API_TOKEN guards every request to the webhooks, reads included (their URLs often carry tokens).
  if (run.mode === 'token') return bearer(TOKEN);
  return {};
}

function client(run: ConformanceRun): {
  get(path: string, headers?: Headers, method?: string): Promise<Response>;
  post(path: string, body: unknown, headers?: Headers): Promise<Response>;
  patch(path: string, body: unknown, headers?: Headers): Promise<Response>;
  remove(path: string, headers?: Headers): Promise<Response>;
  raw(path: string, init: RequestInit & { headers?: Headers }): Promise<Response>;
} {
  return {
    get: (path, headers = {}, method = 'GET') => fetch(`${run.url}${path}`, { method, headers: { ...admin(run), ...headers } }),
    post: (path, body, headers = {}) => postJson(`${run.url}${path}`, body, { ...admin(run), ...headers }),
    patch: (path, body, headers = {}) => patchJson(`${run.url}${path}`, body, { ...admin(run), ...headers }),
    remove: (path, headers = {}) => fetch(`${run.url}${path}`, { method: 'DELETE', headers: { ...admin(run), ...headers } }),
    raw: (path, init) => fetch(`${run.url}${path}`, { ...init, headers: { ...admin(run), ...init.headers } }),
  };
}

/** Registers the tests of the webhook endpoints: successes, every client error, every field code of theirs. */
export function webhookTests(run: ConformanceRun): void {
  // One resource's event types as the sample a webhook subscribes to: the rules are the same for every type.
  const [sample] = run.resources;
  assert.ok(sample !== undefined);
  const created = `${sample.singular}.created`;
  test('/api/webhooks: create, list pages, read, HEAD, 304, change, rotate, delete, 404 and 412 conform', async () => {
    const http = client(run);
    const made = await run.expectStatus('POST', PATH, http.post(PATH, { url: 'https://hooks.example.com/a', events: [created], status: 2 }), 201);
    await run.expectStatus('POST', PATH, http.post(PATH, { url: 'https://hooks.example.com/b', events: null, status: 2 }), 201);
    const page = await http.get(`${PATH}?limit=1`);
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    await run.expectStatus('GET', PATH, page, 200);
    assert.ok(link !== undefined);
    await run.expectStatus('GET', PATH, http.get(link), 200);
    await run.expectStatus('HEAD', PATH, http.get(PATH, {}, 'HEAD'), 200);
    const url = `${PATH}/${String(made['id'])}`;
    await run.expectStatus('GET', ITEM, http.get(url), 200);
    await run.expectStatus('HEAD', ITEM, http.get(url, {}, 'HEAD'), 200);
    // The webhook's tag as the run's version makes it (a version that shows it otherwise tags it otherwise).
    const etag = (await http.get(url, {}, 'HEAD')).headers.get('etag') ?? '';
    await run.expectStatus('GET', ITEM, http.get(url, { 'if-none-match': etag }), 304);
    await run.expectStatus('GET', ITEM, http.get(url, { 'if-match': '"9"' }), 412);
    await run.expectStatus('PATCH', ITEM, http.patch(url, { events: null }, { 'if-match': etag }), 200);
    await run.expectStatus('PATCH', ITEM, http.patch(url, { events: [`${sample.singular}.deleted`] }, { 'if-match': etag }), 412);
    await run.expectStatus('POST', ROTATE, http.raw(`${url}/rotate-secret`, { method: 'POST' }), 200);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, { keepCurrentForSeconds: 0 }), 200);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, {}, { 'if-match': etag }), 412);
    await run.expectStatus('DELETE', ITEM, http.remove(url, { 'if-match': etag }), 412);
    await run.expectStatus('DELETE', ITEM, http.remove(url), 204);
    await run.expectStatus('GET', ITEM, http.get(url), 404);
    await run.expectStatus('PATCH', ITEM, http.patch(url, { status: 1 }), 404);
    await run.expectStatus('DELETE', ITEM, http.remove(url), 404);
    await run.expectStatus('POST', ROTATE, http.raw(`${url}/rotate-secret`, { method: 'POST' }), 404);
    await run.expectStatus('GET', LOG, http.get(`${url}/deliveries`), 404);
    await run.expectStatus('POST', RETRY, http.raw(`${url}/deliveries/1/retry`, { method: 'POST' }), 404);
  });

  test('/api/webhooks/{id}/deliveries: the log, its pages and filter, a retry (202), 410 events_expired and 409 webhook_disabled conform', async () => {
    const http = client(run);
    const receiver = await startReceiver();
    try {
      const made = await run.expectStatus('POST', PATH, http.post(PATH, { url: receiver.url, events: [created] }), 201);
      const url = `${PATH}/${String(made['id'])}`;
      for (const n of [1, 2]) assert.equal((await postJson(`${run.url}${sample.path}`, validBody(sample, n, run.version), run.auth('POST'))).status, 201);
      const log = await eventually(async () => {
        const entries = itemsOf(await (await http.get(`${url}/deliveries`)).json());
        return entries.length === 2 && entries.every((entry) => entry['status'] === 2) ? entries : undefined;
      }, 20_000, 'two deliveries');
      await run.expectStatus('GET', LOG, http.get(`${url}/deliveries?limit=1`), 200);
      const page = await http.get(`${url}/deliveries?limit=1&status=2`);
      const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
      await run.expectStatus('GET', LOG, page, 200);
      assert.ok(link !== undefined);
      await run.expectStatus('GET', LOG, http.get(link), 200);
      await run.expectStatus('HEAD', LOG, http.get(`${url}/deliveries`, {}, 'HEAD'), 200);
      for (const query of ['status=4', 'limit=0', 'cursor=bad!']) await run.expectStatus('GET', LOG, http.get(`${url}/deliveries?${query}`), 400);
      const eventId = String(log[0]?.['eventId']);
      const retried = await run.expectStatus('POST', RETRY, http.raw(`${url}/deliveries/${eventId}/retry`, { method: 'POST' }), 202);
      assert.equal(retried['status'], 1);
      await run.expectStatus('POST', RETRY, http.raw(`${url}/deliveries/999999999/retry`, { method: 'POST' }), 404);
      // A delivery of an event recorded long ago, written behind the service's back: past any retention.
      await run.server.database.sql(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, status) VALUES (${String(made['id'])}, 'expired', 4, '2000-01-01T00:00:00.000Z', '[1,"old","2000-01-01T00:00:00.000Z","2000-01-01T00:00:00.000Z",1]', 2)`,
      );
      await run.expectStatus('POST', RETRY, http.raw(`${url}/deliveries/expired/retry`, { method: 'POST' }), 410);
      await run.expectStatus('PATCH', ITEM, http.patch(url, { status: 2 }), 200);
      await run.expectStatus('POST', RETRY, http.raw(`${url}/deliveries/${eventId}/retry`, { method: 'POST' }), 409);
      await run.expectStatus('DELETE', ITEM, http.remove(url), 204);
    } finally {
      await receiver.close();
    }
  });

  test('/api/webhooks: every client error of a list, a create, a change, a rotation, a read and a delete conforms', async () => {
    const http = client(run);
    const good = { url: 'https://hooks.example.com/c', status: 2 };
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'cursor=bad!']) await run.expectStatus('GET', PATH, http.get(`${PATH}?${query}`), 400);
    await run.expectStatus('POST', PATH, http.post(PATH, good, { 'idempotency-key': 'k-1' }), 400);
    await run.expectStatus('POST', PATH, http.post(PATH, '{"url":'), 400);
    await run.expectStatus('POST', PATH, http.post(PATH, { ...good, url: `https://hooks.example.com/${'x'.repeat(2_000)}` }), 413);
    const gzipped = { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(good)) };
    await run.expectStatus('POST', PATH, http.raw(PATH, gzipped), 415);
    await run.expectStatus('POST', PATH, http.raw(PATH, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), 415);
    const made = await run.expectStatus('POST', PATH, http.post(PATH, good), 201);
    const url = `${PATH}/${String(made['id'])}`;
    for (const header of ['1', '*, "1"']) {
      await run.expectStatus('GET', ITEM, http.get(url, { 'if-none-match': header }), 400);
      await run.expectStatus('PATCH', ITEM, http.patch(url, {}, { 'if-match': header }), 400);
      await run.expectStatus('DELETE', ITEM, http.remove(url, { 'if-match': header }), 400);
      await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, {}, { 'if-match': header }), 400);
    }
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, {}, { 'idempotency-key': 'k-2' }), 400);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, '{"keep'), 400);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, { keepCurrentForSeconds: 604_801, x: 'y'.repeat(2_000) }), 413);
    await run.expectStatus('POST', ROTATE, http.raw(`${url}/rotate-secret`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), 415);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, { keepCurrentForSeconds: -1 }), 422);
    await run.expectStatus('POST', ROTATE, http.post(`${url}/rotate-secret`, { keepCurrentForSeconds: 604_801 }), 422);
    await run.expectStatus('PATCH', ITEM, http.patch(url, '{"url":'), 400);
    await run.expectStatus('PATCH', ITEM, http.patch(url, { url: 'x'.repeat(2_000) }), 413);
    await run.expectStatus('PATCH', ITEM, http.patch(url, {}, { 'content-type': 'text/plain' }), 415);
    await run.expectStatus('PATCH', ITEM, http.patch(url, { url: null, events: [], status: 3 }), 422);
    await run.expectStatus('DELETE', ITEM, http.remove(url), 204);
  });

  test('every field error code of a webhook is produced: invalid_url, duplicate, and forbidden_target where private targets are not allowed', async () => {
    const http = client(run);
    const bodies: unknown[] = [
      {},
      { url: 7, events: 'all', status: '1' },
      { url: 'ftp://hooks.example.com/', events: [], status: 3 },
      { url: 'https://hooks.example.com/', events: [created, `${sample.singular}.made`, created], other: 1 },
      [],
    ];
    for (const body of bodies) await run.expectStatus('POST', PATH, http.post(PATH, body), 422);
    // This run allows private targets (its receivers are on 127.0.0.1): forbidden_target comes from a server that does not.
    const strict = await startTestServer({ SVC_BODY_LIMIT_BYTES: '1024', SVC_API_VERSION: run.version.id });
    try {
      const refused = await run.expectStatus('POST', PATH, postJson(`${strict.url}${PATH}`, { url: 'https://169.254.169.254/latest' }), 422);
      assert.deepEqual((refused['errors'] as Json[]).map((error) => error['code']), ['forbidden_target']);
    } finally {
      await strict.stop();
    }
  });
}
