import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { followUntil } from '../support/events.ts';
import { changingPatch, GADGETS, representationMembers, validBody, ALL_RESOURCES } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { startReceiver, type Receiver, verifyDelivery } from '../support/webhook-receiver.ts';

// A resource the service does not ship, served from its description alone (test/support/resources.ts):
// no `name` field, an object field, an enum without a default, event types of its own (50..52). Every
// shared promise holds for it as it does for the service's own: CRUD, pages and filters, ETags, its
// events in the unfiltered feed, a signed webhook delivery, and the OpenAPI document.

type Json = Record<string, unknown>;
const PATH = GADGETS.path;
let server: TestServer;
let receiver: Receiver;

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }, { resources: ALL_RESOURCES });
});
after(async () => {
  await server.stop();
  await receiver.close();
});

const create = async (n: number): Promise<{ body: Json; etag: string; location: string }> => {
  const response = await postJson(`${server.url}${PATH}`, validBody(GADGETS, n));
  assert.equal(response.status, 201, await response.clone().text());
  return { body: (await response.json()) as Json, etag: String(response.headers.get('etag')), location: String(response.headers.get('location')) };
};

test('create, read, change and delete a resource described only by its fields, with its ETags and preconditions', async () => {
  const made = await create(1);
  assert.deepEqual(Object.keys(made.body), representationMembers(GADGETS));
  assert.equal(made.location, `${PATH}/${String(made.body['id'])}`);
  const read = await fetch(`${server.url}${made.location}`);
  assert.deepEqual([read.status, read.headers.get('etag'), await read.json()], [200, made.etag, made.body]);
  assert.equal((await fetch(`${server.url}${made.location}`, { headers: { 'if-none-match': made.etag } })).status, 304);
  const patch = changingPatch(GADGETS, 1);
  const changed = await patchJson(`${server.url}${made.location}`, patch, { 'if-match': made.etag });
  const body = (await changed.json()) as Json;
  assert.equal(changed.status, 200);
  for (const [field, value] of Object.entries(patch)) assert.deepEqual(body[field], value, field);
  assert.notEqual(changed.headers.get('etag'), made.etag);
  // A member object merges member by member (RFC 7396): the other member stays.
  const merged = await patchJson(`${server.url}${made.location}`, { size: { label: 'merged' } });
  assert.deepEqual((await merged.json() as Json)['size'], { ...(patch['size'] as Json), label: 'merged' });
  assert.equal((await patchJson(`${server.url}${made.location}`, patch, { 'if-match': made.etag })).status, 412);
  assert.equal((await fetch(`${server.url}${made.location}`, { method: 'DELETE', headers: { 'if-match': made.etag } })).status, 412);
  assert.equal((await fetch(`${server.url}${made.location}`, { method: 'DELETE' })).status, 204);
  assert.equal((await fetch(`${server.url}${made.location}`)).status, 404);
});

test('its field rules answer 422 with every error at once, pointing inside the object field', async () => {
  const response = await postJson(`${server.url}${PATH}`, { weightGrams: 0, size: { widthMm: 'wide' }, finish: 9, name: 'none' });
  assert.equal(response.status, 422);
  const problem = (await response.json()) as { errors: { pointer: string; code: string }[] };
  assert.deepEqual(problem.errors.map((error) => `${error.pointer} ${error.code}`), [
    '/weightGrams too_small', '/size/widthMm type', '/size/label required', '/finish invalid_enum', '/name unknown_field',
  ]);
});

test('its list pages newest first and filters by its enum, the filter carried in the next link', async () => {
  const ids: number[] = [];
  for (let n = 10; n < 16; n++) ids.push(Number((await create(n)).body['id']));
  const [filter] = GADGETS.filters;
  assert.equal(filter, 'finish');
  const wanted = validBody(GADGETS, 10)['finish'];
  const matching = ids.filter((_, i) => validBody(GADGETS, 10 + i)['finish'] === wanted).reverse();
  const first = await fetch(`${server.url}${PATH}?finish=${String(wanted)}&limit=1`);
  const page = (await first.json()) as Json[];
  assert.deepEqual(page.map((gadget) => gadget['id']), matching.slice(0, 1));
  assert.match(String(first.headers.get('link')), new RegExp(`^<${PATH}\\?limit=1&finish=${String(wanted)}&cursor=[A-Za-z0-9_-]+>; rel="next"$`));
  assert.equal((await fetch(`${server.url}${PATH}?finish=7`)).status, 400);
});

test('its events are in the unfiltered feed, and a webhook for its type receives one, signed', async () => {
  const hook = await postJson(`${server.url}/api/webhooks`, { url: `${receiver.url}`, events: ['gadget.updated'] });
  assert.equal(hook.status, 201, await hook.clone().text());
  const { secret } = (await hook.json()) as { secret: string };
  const made = await create(20);
  const changed = await patchJson(`${server.url}${made.location}`, { weightGrams: 999 });
  assert.equal(changed.status, 200);
  const { events } = await followUntil(server.url, '/api/events', (seen) => seen.some((event) => event.type === 'gadget.updated' && (event.data as Json)['id'] === made.body['id']));
  const mine = events.filter((event) => (event.data as Json)['id'] === made.body['id'] && event.type.startsWith('gadget.'));
  assert.deepEqual(mine.map((event) => event.type), ['gadget.created', 'gadget.updated']);
  assert.deepEqual(mine[1]?.data, await changed.json());
  const [delivery] = await receiver.waitFor(1);
  assert.ok(delivery !== undefined);
  const verified = verifyDelivery(secret, delivery) as Json;
  assert.equal(verified['type'], 'gadget.updated');
  assert.equal(delivery.body, JSON.stringify(mine[1]), 'the delivery is the feed\'s event, byte for byte');
  const types = await fetch(`${server.url}/api/events?type=gadget.deleted`);
  assert.equal(types.status, 200);
});

test('the served OpenAPI document describes it: its schemas, its five operations, its event types', async () => {
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
  const schemas = (document['components'] as Json)['schemas'] as Json;
  for (const name of ['Gadget', 'NewGadget', 'GadgetPatch', 'GadgetFinish']) assert.ok(name in schemas, name);
  const paths = document['paths'] as Record<string, Json>;
  assert.deepEqual(Object.keys(paths[PATH] ?? {}).sort(), ['get', 'post']);
  assert.deepEqual(Object.keys(paths[`${PATH}/{id}`] ?? {}).filter((key) => key !== 'parameters').sort(), ['delete', 'get', 'patch']);
  assert.ok(((schemas['EventType'] as Json)['enum'] as string[]).includes('gadget.deleted'));
  assert.ok('gadget.created' in (document['webhooks'] as Json));
});
