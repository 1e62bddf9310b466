import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { feedBytesOf } from '../support/feed-bytes.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { eventually, type Received, type Receiver, startReceiver, verifyDelivery } from '../support/webhook-receiver.ts';

// A webhook pins the API version its deliveries are made in (docs/webhooks.md, versions of deliveries):
// POST and PATCH take `apiVersion` where the request's version has the member, each delivery is made in
// the webhook's version when its event was recorded, the same bytes on every attempt, with an Api-Version
// header. The PostgreSQL pass runs this file too.
const [FIRST, LISTS, NEWEST] = ['2026-11-21', '2026-11-28', '2026-12-05'];
type Json = Record<string, unknown>;
// Receivers on 127.0.0.1; no automatic retry within a test (a retry is asked for when a test wants one).
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '1h' };

// A 422's field errors, as `pointer code`.
const pointers = async (response: Response): Promise<string[]> => {
  assert.equal(response.status, 422, await response.clone().text());
  return ((await response.json()) as { errors: Json[] }).errors.map((error) => `${error['pointer']} ${error['code']}`);
};
const idOf = (received: Received): string => String(received.headers['webhook-id']);

describe('a webhook\'s apiVersion in POST and PATCH', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(ENV);
  });
  after(() => server.stop());

  const create = (body: unknown, version?: string): Promise<Response> => postJson(`${server.url}/api/webhooks`, body, version === undefined ? {} : { 'api-version': version });
  const patch = (id: unknown, body: unknown, headers: Record<string, string> = {}): Promise<Response> => patchJson(`${server.url}/api/webhooks/${id}`, body, headers);
  const read = (id: unknown, version: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${server.url}/api/webhooks/${id}`, { headers: { 'api-version': version, ...headers } });
  // Disabled: these tests record no events.
  const HOOK = { url: 'https://hooks.example.com/svc', status: 2 };

  test('in a version without the member: a new webhook pins the request\'s version; apiVersion is unknown_field in POST and PATCH', async () => {
    const made = await create(HOOK);
    assert.equal(made.status, 201);
    const webhook = (await made.json()) as Json;
    assert.deepEqual(Object.keys(webhook), ['id', 'url', 'events', 'status', 'createdAt', 'updatedAt', 'secret']);
    assert.equal(((await (await read(webhook['id'], LISTS)).json()) as Json)['apiVersion'], FIRST);
    const before = await server.database.countRows('webhooks');
    const refused = await create({ ...HOOK, apiVersion: NEWEST }, FIRST);
    assert.deepEqual(await pointers(refused), ['/apiVersion unknown_field']);
    assert.equal(await server.database.countRows('webhooks'), before);
    const unknown = await patch(webhook['id'], { apiVersion: NEWEST, status: 5 });
    assert.deepEqual(await pointers(unknown), ['/status invalid_enum', '/apiVersion unknown_field']);
    assert.equal(((await (await read(webhook['id'], LISTS)).json()) as Json)['apiVersion'], FIRST, 'nothing changed');
  });

  test('where the version has it: POST pins any version served, else the request\'s; the member goes last, before the secret', async () => {
    const pinned = await create({ ...HOOK, apiVersion: NEWEST }, LISTS);
    assert.deepEqual([pinned.status, pinned.headers.get('etag')], [201, '"1.1"']);
    const webhook = (await pinned.json()) as Json;
    assert.deepEqual(Object.keys(webhook), ['id', 'url', 'events', 'status', 'createdAt', 'updatedAt', 'apiVersion', 'secret']);
    assert.equal(webhook['apiVersion'], NEWEST);
    assert.equal(((await (await create(HOOK, LISTS)).json()) as Json)['apiVersion'], LISTS, "the request's version");
    assert.equal(((await (await create({ ...HOOK, apiVersion: FIRST }, NEWEST)).json()) as Json)['apiVersion'], FIRST, 'an older one too');
    const before = await server.database.countRows('webhooks');
    for (const [apiVersion, code] of [['2026-11-22', 'invalid_enum'], ['latest', 'invalid_enum'], [20261205, 'type'], [null, 'type']] as const) {
      const refused = await create({ url: 'ftp://x', apiVersion }, NEWEST);
      assert.deepEqual(await pointers(refused), ['/url invalid_url', `/apiVersion ${code}`], String(apiVersion));
    }
    assert.equal(await server.database.countRows('webhooks'), before);
  });

  test('PATCH moves it where the version has the member: every field error at once, ETags move in every version', async () => {
    const webhook = (await (await create(HOOK)).json()) as Json;
    const id = webhook['id'];
    for (const [body, expected] of [
      [{ apiVersion: '2026-13-01', url: 'ftp://x' }, ['/url invalid_url', '/apiVersion invalid_enum']],
      [{ apiVersion: null }, ['/apiVersion type']],
    ] as const) {
      const refused = await patch(id, body, { 'api-version': LISTS });
      assert.deepEqual(await pointers(refused), expected, JSON.stringify(body));
    }
    assert.deepEqual([(await read(id, FIRST)).headers.get('etag'), (await read(id, LISTS)).headers.get('etag')], ['"1"', '"1.1"']);
    const moved = await patch(id, { apiVersion: NEWEST }, { 'api-version': LISTS, 'if-match': '"1.1"' });
    assert.deepEqual([moved.status, moved.headers.get('etag'), ((await moved.json()) as Json)['apiVersion']], [200, '"2.1"', NEWEST]);
    // A change 2026-11-21 does not show still moves its tag; a tag of another version's representation is 412.
    assert.equal((await read(id, FIRST)).headers.get('etag'), '"2"');
    assert.equal((await patch(id, { apiVersion: FIRST }, { 'api-version': NEWEST, 'if-match': '"2"' })).status, 412);
    const same = await patch(id, { apiVersion: NEWEST }, { 'api-version': NEWEST, 'if-match': '"2.1"' });
    assert.deepEqual([same.status, same.headers.get('etag')], [200, '"2.1"'], 'a patch that changes nothing keeps the tag');
    const back = await patch(id, { apiVersion: FIRST }, { 'api-version': NEWEST });
    assert.deepEqual([back.status, ((await back.json()) as Json)['apiVersion']], [200, FIRST]);
  });
});

describe('deliveries in the webhook\'s version', () => {
  let server: TestServer;
  // Each test's own, and only its webhooks enabled while it runs.
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer(ENV);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    const listed = (await (await fetch(`${server.url}/api/webhooks`)).json()) as Json[];
    for (const webhook of listed) assert.equal((await fetch(`${server.url}/api/webhooks/${webhook['id']}`, { method: 'DELETE' })).status, 204);
    await receiver.close();
  });
  after(() => server.stop());

  const hook = async (apiVersion: string, path: string): Promise<{ id: number; secret: string }> => {
    const made = await postJson(`${server.url}/api/webhooks`, { url: `${receiver.url}${path}`, apiVersion }, { 'api-version': NEWEST });
    assert.equal(made.status, 201);
    return (await made.json()) as { id: number; secret: string };
  };
  const product = async (name: string): Promise<void> => assert.equal((await postJson(`${server.url}/api/products`, { name, priceInCents: 1999 })).status, 201);

  test('one event to three webhooks in three versions: each body is the feed\'s bytes of that event in its version, verified, with Api-Version', async () => {
    const hooks = new Map([[FIRST, await hook(FIRST, '/first')], [LISTS, await hook(LISTS, '/lists')], [NEWEST, await hook(NEWEST, '/newest')]]);
    await product('lamp');
    const deliveries = await receiver.waitFor(3);
    assert.equal(new Set(deliveries.map(idOf)).size, 1, 'one event');
    for (const [version, webhook] of hooks) {
      const delivery = deliveries.find((request) => request.headers['api-version'] === version);
      assert.ok(delivery !== undefined, `a delivery in ${version}`);
      verifyDelivery(webhook.secret, delivery);
      assert.equal(delivery.body, await feedBytesOf(server.url, idOf(delivery), version), `${version}: the feed's bytes`);
    }
    const bodies = deliveries.map((request) => JSON.parse(request.body) as { data: Json });
    assert.deepEqual(bodies.map((body) => Object.hasOwn(body.data, 'price')).sort(), [false, false, true], 'the newest shows a price with a currency');
  });

  test('a webhook moved while a delivery is pending: that delivery keeps its version and bytes, the next event comes in the new one', async () => {
    const webhook = await hook(FIRST, '/moved');
    // The first attempt fails: the delivery stays pending (the next one planned an hour later).
    receiver.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    await product('desk');
    const [failed] = (await receiver.waitFor(1)) as [Received];
    await eventually(async () => {
      const log = (await (await fetch(`${server.url}/api/webhooks/${webhook.id}/deliveries`)).json()) as Json[];
      return log[0]?.['attempts'] === 1 ? true : undefined;
    }, 10_000, 'the failed attempt recorded');
    const moved = await patchJson(`${server.url}/api/webhooks/${webhook.id}`, { apiVersion: NEWEST }, { 'api-version': LISTS });
    assert.equal(moved.status, 200);
    // Attempted again now, after the move: the same version and bytes.
    assert.equal((await postJson(`${server.url}/api/webhooks/${webhook.id}/deliveries/${idOf(failed)}/retry`, {})).status, 202);
    const [, again] = (await receiver.waitFor(2)) as [Received, Received];
    assert.deepEqual([idOf(again), again.headers['api-version'], again.body], [idOf(failed), FIRST, failed.body]);
    verifyDelivery(webhook.secret, again);
    await product('chair');
    const [, , next] = (await receiver.waitFor(3)) as [Received, Received, Received];
    assert.equal(next.headers['api-version'], NEWEST);
    assert.equal(next.body, await feedBytesOf(server.url, idOf(next), NEWEST));
  });
});

describe('a webhook whose version is past its sunset', () => {
  let server: TestServer;
  let receiver: Receiver;
  // The first version goes away a few seconds after the server starts; requests without the header get 2026-11-28.
  let sunset: number;
  before(async () => {
    sunset = Date.now() + 5_000;
    server = await startTestServer({ ...ENV, SVC_API_SUNSET: `${FIRST}=${new Date(sunset).toISOString()}`, SVC_API_VERSION: LISTS });
    receiver = await startReceiver();
  });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  test('deliveries recorded before it keep their version and bytes; later events come in the oldest version served, which apiVersion shows, and the tag moves', async () => {
    const made = await postJson(`${server.url}/api/webhooks`, { url: receiver.url, apiVersion: FIRST });
    assert.deepEqual([made.status, made.headers.get('etag')], [201, '"1.1"']);
    const webhook = (await made.json()) as { id: number; secret: string };
    const path = `${server.url}/api/webhooks/${webhook.id}`;
    receiver.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'before', priceInCents: 1 })).status, 201);
    const [early] = (await receiver.waitFor(1)) as [Received];
    assert.ok(Date.parse((JSON.parse(early.body) as { createdAt: string }).createdAt) < sunset, 'recorded before the sunset (a machine this slow cannot run this test)');
    assert.equal(early.headers['api-version'], FIRST);
    // By itself, once the sunset has passed: the webhook shows the oldest version still served, under a new tag.
    const shown = await eventually(async () => {
      const answer = await fetch(path);
      const body = (await answer.json()) as Json;
      return body['apiVersion'] === LISTS ? { etag: answer.headers.get('etag'), body } : undefined;
    }, 20_000, 'the webhook moved by the sunset');
    assert.ok(Date.now() >= sunset);
    assert.equal(shown.etag, '"3.1"', 'its version, one more, and one version gone');
    assert.equal((await patchJson(path, { status: 1 }, { 'if-match': '"1.1"' })).status, 412);
    // Attempted again after the sunset: still in the version it was recorded in, the same bytes.
    const eventId = idOf(early);
    assert.equal((await postJson(`${path}/deliveries/${eventId}/retry`, {})).status, 202);
    const [, again] = (await receiver.waitFor(2)) as [Received, Received];
    assert.deepEqual([idOf(again), again.headers['api-version'], again.body], [eventId, FIRST, early.body]);
    verifyDelivery(webhook.secret, again);
    // Recorded after it: in 2026-11-28, the feed's bytes in that version.
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'after', priceInCents: 2 })).status, 201);
    const [, , late] = (await receiver.waitFor(3)) as [Received, Received, Received];
    verifyDelivery(webhook.secret, late);
    assert.equal(late.headers['api-version'], LISTS);
    assert.equal(late.body, await feedBytesOf(server.url, idOf(late), LISTS));
    // A write under the tag it shows stores a version served.
    const moved = await patchJson(path, { apiVersion: NEWEST }, { 'if-match': '"3.1"' });
    assert.deepEqual([moved.status, moved.headers.get('etag')], [200, '"4.1"']);
    assert.deepEqual(await server.database.sql(`SELECT api_version, version FROM webhooks WHERE id = ${webhook.id}`), [[NEWEST, 4]]);
  });
});
