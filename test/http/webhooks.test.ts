import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { createAt, eventTypesOf, type Json } from '../support/resource-requests.ts';
import { ALL_RESOURCES, RESOURCES } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

// Every event type of every resource served (the test resource's 50..52 included), in the order of
// their stored numbers: what a webhook's `events` takes and answers.
const TYPES = ALL_RESOURCES.flatMap((resource) => eventTypesOf(resource).map((type, i) => [type, Object.values(resource.events)[i] as number] as const))
  .sort(([, a], [, b]) => a - b)
  .map(([type]) => type);
const SAMPLE = RESOURCES[0] as Resource;
const [CREATED] = eventTypesOf(SAMPLE);
const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{43}=$/;
const MEMBERS = ['id', 'url', 'events', 'status', 'createdAt', 'updatedAt'];
// Disabled: these tests record no events, and a disabled webhook is never sent to anyway (no DNS, no traffic).
const HOOK = { url: 'https://hooks.example.com/svc?token=abc', status: 2 };

describe('the webhook endpoints', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer({ SVC_BODY_LIMIT_BYTES: '4096' }, { resources: ALL_RESOURCES });
    receiver = await startReceiver();
  });
  after(async () => {
    await server.stop();
    await receiver.close();
  });

  const create = (body: unknown, headers: Record<string, string> = {}): Promise<Response> => postJson(`${server.url}/api/webhooks`, body, headers);
  const read = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(`${server.url}${path}`, { headers });
  const made = async (body: unknown = HOOK): Promise<Json> => {
    const response = await create(body);
    assert.equal(response.status, 201);
    return (await response.json()) as Json;
  };

  test('POST makes a webhook: 201 with exactly the Webhook members and its secret, Location and ETag; reads never show the secret', async () => {
    const response = await create({ url: 'https://hooks.example.com/svc', events: [...TYPES].reverse(), status: 2 });
    assert.equal(response.status, 201);
    const body = (await response.json()) as Json;
    assert.deepEqual(Object.keys(body), [...MEMBERS, 'secret']);
    assert.match(String(body['secret']), SECRET_SHAPE);
    assert.deepEqual([body['url'], body['events'], body['status']], ['https://hooks.example.com/svc', TYPES, 2]);
    assert.equal(body['createdAt'], body['updatedAt']);
    assert.equal(response.headers.get('location'), `/api/webhooks/${body['id']}`);
    assert.equal(response.headers.get('etag'), '"1"');
    const { secret, ...webhook } = body;
    const got = await read(`/api/webhooks/${body['id']}`);
    assert.deepEqual([got.status, got.headers.get('etag'), await got.json()], [200, '"1"', webhook]);
    const listed = await (await read('/api/webhooks')).text();
    assert.ok(!listed.includes(String(secret)));
    const defaults = await made({ url: 'https://hooks.example.com/all', status: 2 });
    assert.deepEqual([defaults['events'], defaults['status']], [null, 2]);
    const enabled = await made({ url: 'https://hooks.example.com/on', events: null });
    assert.equal(enabled['status'], 1);
    // Disabled before any event is recorded: nothing is ever sent outside the machine.
    assert.equal((await patchJson(`${server.url}/api/webhooks/${enabled['id']}`, { status: 2 })).status, 200);
  });

  test('every field error at once, each with its code and pointer; nothing made', async () => {
    const before = await server.database.countRows('webhooks');
    const cases: [unknown, string[]][] = [
      [{}, ['/url required']],
      [{ url: 'ftp://x.example.com', events: [], status: 3 }, ['/url invalid_url', '/events too_short', '/status invalid_enum']],
      [{ url: 'not a url', events: [CREATED, `${SAMPLE.singular}.made`, 7, CREATED], hook: 1 }, [
        '/url invalid_url', '/events/1 invalid_enum', '/events/2 type', '/events/3 duplicate', '/hook unknown_field',
      ]],
      [{ url: 7, events: CREATED, status: '1' }, ['/url type', '/events type', '/status type']],
      [{ url: 'https://user:pw@hooks.example.com/' }, ['/url invalid_url']],
      [{ url: 'https://hooks.example.com/#frag' }, ['/url invalid_url']],
      [{ url: `https://hooks.example.com/${'a'.repeat(2048)}` }, ['/url invalid_url']],
      [['url'], [' type']],
    ];
    for (const [body, expected] of cases) {
      const answer = await create(body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      const problem = (await answer.json()) as Json;
      assert.equal(problem['code'], 'validation_failed');
      assert.deepEqual((problem['errors'] as Json[]).map((error) => `${error['pointer']} ${error['code']}`), expected, JSON.stringify(body));
    }
    assert.equal(await server.database.countRows('webhooks'), before);
  });

  test('by default a private or local target, or plain http:, is forbidden_target, and nothing reaches it', async () => {
    const local = receiver.url.replace('http:', 'https:');
    const port = receiver.port;
    const targets = [
      receiver.url, local, `https://localhost:${port}/`, `https://a.localhost/`, `https://[::1]:${port}/`, `https://2130706433:${port}/`,
      `https://0x7f.1:${port}/`, `https://127.1:${port}/`, `https://[::ffff:127.0.0.1]:${port}/`, 'https://10.0.0.1/', 'https://192.168.1.1/',
      'https://172.16.0.1/', 'https://100.64.0.1/', 'https://169.254.169.254/latest/meta-data', 'https://[fe80::1]/', 'https://[fd00::1]/',
      'https://0.0.0.0/', 'https://[::]/', 'https://224.0.0.1/', 'https://[ff02::1]/', 'http://hooks.example.com/',
    ];
    for (const url of targets) {
      const answer = await create({ url });
      assert.equal(answer.status, 422, url);
      const errors = ((await answer.json()) as Json)['errors'] as Json[];
      assert.deepEqual(errors.map((error) => `${error['pointer']} ${error['code']}`), ['/url forbidden_target'], url);
    }
    await createAt(server.url, SAMPLE);
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(receiver.received.length, 0);
  });

  test('an Idempotency-Key on a create or a rotation is 400 invalid_header: those answers hold a secret, never stored', async () => {
    const before = await server.database.countRows('webhooks');
    const answer = await create(HOOK, { 'idempotency-key': 'k-1' });
    assert.equal(answer.status, 400);
    assert.equal(((await answer.json()) as Json)['code'], 'invalid_header');
    assert.equal(await server.database.countRows('webhooks'), before);
    const webhook = await made();
    const rotation = await fetch(`${server.url}/api/webhooks/${webhook['id']}/rotate-secret`, { method: 'POST', headers: { 'idempotency-key': 'k-2' } });
    assert.equal(rotation.status, 400);
  });

  test('the list: newest first, paged with Link next, never a secret', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await made())['id'] as number);
    const first = await read('/api/webhooks?limit=2');
    const page = (await first.json()) as Json[];
    assert.deepEqual(page.map((webhook) => webhook['id']), [ids[2], ids[1]]);
    assert.ok(page.every((webhook) => Object.keys(webhook).join() === MEMBERS.join()));
    const link = first.headers.get('link') ?? '';
    const next = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    assert.ok(next !== undefined, link);
    const second = (await (await read(next)).json()) as Json[];
    assert.equal(second[0]?.['id'], ids[0]);
    assert.equal((await read('/api/webhooks?limit=0')).status, 400);
    assert.equal((await read('/api/webhooks?cursor=nope')).status, 400);
  });

  test('PATCH: a merge patch of url, events and status; "events": null removes the filter; any other null is a type error', async () => {
    const webhook = await made({ ...HOOK, events: [CREATED] });
    const path = `${server.url}/api/webhooks/${webhook['id']}`;
    // Two types of two resources, sent in the reverse of their order.
    const [first, last] = TYPES.filter((type) => type === eventTypesOf(ALL_RESOURCES[0] as Resource)[1] || type === eventTypesOf(ALL_RESOURCES.at(-1) as Resource)[2]) as [string, string];
    const changed = await patchJson(path, { url: 'https://other.example.com/x', events: [last, first] });
    assert.equal(changed.status, 200);
    assert.equal(changed.headers.get('etag'), '"2"');
    const body = (await changed.json()) as Json;
    assert.deepEqual([body['url'], body['events'], body['status']], ['https://other.example.com/x', [first, last], 2]);
    assert.deepEqual(Object.keys(body), MEMBERS);
    const cleared = (await (await patchJson(path, { events: null })).json()) as Json;
    assert.equal(cleared['events'], null);
    const same = await patchJson(path, { events: null, status: 2 });
    assert.deepEqual([same.status, same.headers.get('etag')], [200, '"3"']);
    const refused = await patchJson(path, { url: null, status: null, events: [], secret: 'x' });
    assert.equal(refused.status, 422);
    assert.deepEqual((((await refused.json()) as Json)['errors'] as Json[]).map((error) => `${error['pointer']} ${error['code']}`), [
      '/url type', '/events too_short', '/status type', '/secret unknown_field',
    ]);
    assert.equal((await patchJson(path, { url: 'https://10.1.2.3/' })).status, 422);
  });

  test('ETags and preconditions as every resource: 304, 412 on a stale If-Match, 404 for an unknown or malformed id', async () => {
    const webhook = await made();
    const path = `${server.url}/api/webhooks/${webhook['id']}`;
    assert.equal((await read(`/api/webhooks/${webhook['id']}`, { 'if-none-match': '"1"' })).status, 304);
    assert.equal((await read(`/api/webhooks/${webhook['id']}`, { 'if-match': '"9"' })).status, 412);
    assert.equal((await patchJson(path, { status: 1 }, { 'if-match': '"9"' })).status, 412);
    assert.equal((await fetch(path, { method: 'DELETE', headers: { 'if-match': '"9"' } })).status, 412);
    assert.equal((await patchJson(path, { status: 2 }, { 'if-match': '"1"' })).status, 200);
    for (const id of ['999999', '0', 'abc']) assert.equal((await read(`/api/webhooks/${id}`)).status, 404);
    assert.equal((await fetch(path, { method: 'DELETE', headers: { 'if-match': '*' } })).status, 204);
    assert.equal((await read(`/api/webhooks/${webhook['id']}`)).status, 404);
    assert.equal((await fetch(path, { method: 'DELETE' })).status, 404);
    assert.equal((await patchJson(path, { status: 1 })).status, 404);
  });

  test('rotate-secret: 200 with a new secret and a new ETag; keepCurrentForSeconds 0..604800, default when there is no body', async () => {
    const webhook = await made();
    const path = `${server.url}/api/webhooks/${webhook['id']}/rotate-secret`;
    const rotated = await fetch(path, { method: 'POST' });
    assert.equal(rotated.status, 200);
    const body = (await rotated.json()) as Json;
    assert.deepEqual(Object.keys(body), [...MEMBERS, 'secret']);
    assert.match(String(body['secret']), SECRET_SHAPE);
    assert.notEqual(body['secret'], webhook['secret']);
    assert.equal(rotated.headers.get('etag'), '"2"');
    // Both ends of the range are accepted, and one past either is refused.
    assert.equal((await postJson(path, { keepCurrentForSeconds: 0 })).status, 200);
    assert.equal((await postJson(path, { keepCurrentForSeconds: 604_800 })).status, 200);
    const refused = await postJson(path, { keepCurrentForSeconds: 604_801 });
    assert.equal(refused.status, 422);
    assert.deepEqual((((await refused.json()) as Json)['errors'] as Json[]).map((error) => `${error['pointer']} ${error['code']}`), ['/keepCurrentForSeconds too_large']);
    const negative = await postJson(path, { keepCurrentForSeconds: -1, other: true });
    assert.deepEqual((((await negative.json()) as Json)['errors'] as Json[]).map((error) => `${error['pointer']} ${error['code']}`), [
      '/keepCurrentForSeconds too_small', '/other unknown_field',
    ]);
    assert.equal((await fetch(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).status, 415);
    assert.equal((await fetch(`${server.url}/api/webhooks/999999/rotate-secret`, { method: 'POST' })).status, 404);
    assert.equal((await fetch(path, { method: 'POST', headers: { 'if-match': '"1"' } })).status, 412);
  });

  test('the delivery log and retry of an unknown webhook or event are 404; the log filter is checked', async () => {
    assert.equal((await read('/api/webhooks/999999/deliveries')).status, 404);
    const webhook = await made();
    const log = await read(`/api/webhooks/${webhook['id']}/deliveries`);
    assert.deepEqual([log.status, await log.json()], [200, []]);
    assert.equal((await read(`/api/webhooks/${webhook['id']}/deliveries?status=4`)).status, 400);
    const retry = await fetch(`${server.url}/api/webhooks/${webhook['id']}/deliveries/12345/retry`, { method: 'POST' });
    assert.equal(retry.status, 404);
    assert.equal((await fetch(`${server.url}/api/webhooks/${webhook['id']}/deliveries/a.b/retry`, { method: 'POST' })).status, 404);
  });

  test("the API's page and the OpenAPI document list every webhook operation; the document's top-level webhooks has every event type", async () => {
    const page = await (await read('/api/docs')).text();
    const document = (await (await read('/api/openapi.json')).json()) as Json;
    const operations = ['listWebhooks', 'createWebhook', 'getWebhook', 'changeWebhook', 'deleteWebhook', 'rotateWebhookSecret', 'listWebhookDeliveries', 'retryWebhookDelivery'];
    for (const id of operations) assert.ok(page.includes(id), id);
    const webhooks = document['webhooks'] as Record<string, { post: { parameters: Json[] } }>;
    assert.deepEqual(Object.keys(webhooks), ALL_RESOURCES.flatMap(eventTypesOf));
    for (const entry of Object.values(webhooks)) assert.deepEqual(entry.post.parameters.map((p) => p['name']), ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'Api-Version']);
  });
});
