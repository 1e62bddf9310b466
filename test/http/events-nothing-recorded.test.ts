import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../support/assertions.ts';
import { bearer, type KeysServer, startKeysServer } from '../support/keys.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// §16: only a committed change of a resource records an event. The keys and webhook endpoints change
// other things, and record none (a product is the marker that shows where the feed stands); and the live stream is read from a browser like
// any other answer (CORS, §14), its refusals included.

interface WireEvent {
  id: string;
  type: string;
  data: { id: number; name?: string };
}

let server: KeysServer;
before(async () => {
  server = await startKeysServer({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
});
after(() => server.stop());

const admin = (): Record<string, string> => bearer(server.admin.key);

// Creates a product named `name` and waits until the feed shows it; the events from `from` up to it.
async function marker(name: string, from: string | null): Promise<{ before: WireEvent[]; id: string }> {
  const created = await postJson(`${server.url}/api/products`, { name, priceInCents: 1 }, admin());
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };
  let seen: WireEvent[] = [];
  await eventually(`the event of product ${name}`, async () => {
    const response = await fetch(`${server.url}/api/events?limit=200${from === null ? '' : `&after=${from}`}`, { headers: admin() });
    assert.equal(response.status, 200);
    seen = (await response.json()) as WireEvent[];
    return seen.some((event) => event.type === 'product.created' && event.data.id === id);
  });
  const at = seen.findIndex((event) => event.type === 'product.created' && event.data.id === id);
  return { before: seen.slice(0, at), id: (seen[at] as WireEvent).id };
}

test('the keys and webhook endpoints record no event, whatever they answer', async () => {
  const start = await marker('start', null);
  const made = await postJson(`${server.url}/api/keys`, { name: 'k', scopes: ['read'] }, admin());
  assert.equal(made.status, 201);
  const key = (await made.json()) as { id: string };
  assert.equal((await fetch(`${server.url}/api/keys`, { headers: admin() })).status, 200);
  assert.equal((await fetch(`${server.url}/api/keys/${key.id}`, { method: 'DELETE', headers: admin() })).status, 204);
  assert.equal((await postJson(`${server.url}/api/keys`, { name: '' }, admin())).status, 422);
  // A loopback port nothing listens on: no event is recorded, so nothing is ever sent to it anyway.
  const hook = await postJson(`${server.url}/api/webhooks`, { url: 'http://127.0.0.1:9/hook' }, admin());
  assert.equal(hook.status, 201);
  const { id } = (await hook.json()) as { id: number };
  assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 2 }, admin())).status, 200);
  assert.equal((await fetch(`${server.url}/api/webhooks/${id}/rotate-secret`, { method: 'POST', headers: admin() })).status, 200);
  assert.equal((await fetch(`${server.url}/api/webhooks/${id}/deliveries`, { headers: admin() })).status, 200);
  assert.equal((await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE', headers: admin() })).status, 204);
  assert.equal((await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE', headers: admin() })).status, 404);
  const end = await marker('end', start.id);
  assert.deepEqual(end.before, []);
});

test('the live stream and its refusals carry the CORS headers of §14', async () => {
  let open: TestServer | undefined;
  try {
    open = await startTestServer({ SVC_CORS_ORIGINS: 'https://app.example' });
    const origin = 'https://app.example';
    const aborter = new AbortController();
    const stream = await fetch(`${open.url}/api/events`, { headers: { accept: 'text/event-stream', origin }, signal: aborter.signal });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.headers.get('access-control-allow-origin'), origin);
    assert.match(stream.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
    aborter.abort();
    const refused = await fetch(`${open.url}/api/events`, { headers: { accept: 'text/event-stream', origin, 'last-event-id': 'not.an.id' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('access-control-allow-origin'), origin);
    await refused.body?.cancel();
    const preflight = await fetch(`${open.url}/api/events`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'last-event-id, authorization' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Last-Event-ID/i);
  } finally {
    await open?.stop();
  }
});
