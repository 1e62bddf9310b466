import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { VERSIONS } from '../../src/registry.ts';
import { describeResource, type FieldTable } from '../../src/resources/resource.ts';
import type { Body, ResourceChange, VersionSpec } from '../../src/versions/model.ts';
import { startWebhookDeliveries } from '../../src/webhook-deliveries.ts';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { followUntil } from '../support/events.ts';
import { GADGETS, RESOURCES } from '../support/resources.ts';
import { patchJson, postJson } from '../support/server.ts';
import { type Received, startReceiver, verifyDelivery } from '../support/webhook-receiver.ts';

// How a version is added (docs/versions.md): one module. Here a throwaway fourth version, 2030-01-01,
// renames the test resource's `finish` to `surface`: the newest description says `surface` (its column
// stays `finish`), and the one change says how the version before named it. No use case, route or
// storage is touched; every older version keeps answering `finish`, and the chain carries a request of
// any version up to the newest and its answer back down.

const NEXT = '2030-01-01';
const renamed = <V>(record: Readonly<Record<string, V>>, from: string, to: string): Record<string, V> => {
  const result: Record<string, V> = {};
  for (const name in record) result[name === from ? to : name] = record[name] as V;
  return result;
};
const finishToSurface: ResourceChange = {
  version: NEXT,
  fieldsBefore: (fields: FieldTable) => renamed(fields, 'surface', 'finish'),
  upgrade: (body: Body) => renamed(body, 'finish', 'surface'),
  downgrade: (body: Body) => renamed(body, 'surface', 'finish'),
};
const { finish, ...others } = GADGETS.fields;
const { plural, singular, summary, events, exampleId } = GADGETS;
const GADGETS_NEXT = describeResource({ plural, singular, summary, events, exampleId, fields: { ...others, surface: { ...finish, column: 'finish' } }, changes: [finishToSurface] });
const FOURTH: VersionSpec = { version: NEXT, summary: 'Gadgets name their finish surface.' };

// A webhook receiver on 127.0.0.1.
const PRIVATE_TARGETS = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' };
let app: AppServer;
before(async () => {
  app = await startAppServer(PRIVATE_TARGETS, { resources: [...RESOURCES, GADGETS_NEXT], versions: [...VERSIONS, FOURTH] });
});
after(() => app.stop());

const body = { weightGrams: 10, size: { widthMm: 5, label: 'x' } };

test('a fourth version is served beside the others: listed first, answering in its own shape', async () => {
  const versions = (await (await fetch(`${app.url}/api/versions`)).json()) as { versions: { version: string }[] };
  assert.deepEqual(versions.versions.map((v) => v.version), [NEXT, ...VERSIONS.map((v) => v.version).reverse()]);
  const made = await postJson(`${app.url}${GADGETS.path}`, { ...body, surface: 2 }, { 'api-version': NEXT });
  assert.equal(made.status, 201, await made.clone().text());
  assert.equal(made.headers.get('api-version'), NEXT);
  const gadget = (await made.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(gadget), ['id', 'weightGrams', 'size', 'surface', 'createdAt', 'updatedAt']);
  // The version before it names the same field `finish`, in the same place, and refuses `surface`.
  const older = VERSIONS.at(-1)?.version ?? '';
  const read = (await (await fetch(`${app.url}${GADGETS.path}/${String(gadget['id'])}`, { headers: { 'api-version': older } })).json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(read), ['id', 'weightGrams', 'size', 'finish', 'createdAt', 'updatedAt']);
  assert.equal(read['finish'], 2);
  const refused = await postJson(`${app.url}${GADGETS.path}`, { ...body, surface: 2 }, { 'api-version': older });
  assert.deepEqual(((await refused.json()) as { errors: { pointer: string; code: string }[] }).errors.map((e) => `${e.pointer} ${e.code}`), ['/finish required', '/surface unknown_field']);
});

test('a request of every older version is carried up the chain, and its answer down', async () => {
  for (const { version } of VERSIONS) {
    const made = await postJson(`${app.url}${GADGETS.path}`, { ...body, finish: 3 }, { 'api-version': version });
    assert.equal(made.status, 201, `${version}: ${await made.clone().text()}`);
    const location = String(made.headers.get('location'));
    const changed = await patchJson(`${app.url}${location}`, { finish: 1 }, { 'api-version': version });
    assert.equal(((await changed.json()) as Record<string, unknown>)['finish'], 1, version);
    const newest = (await (await fetch(`${app.url}${location}`, { headers: { 'api-version': NEXT } })).json()) as Record<string, unknown>;
    assert.equal(newest['surface'], 1, `${version}: stored as the newest names it`);
    // Its entity tags tell the two shapes apart: a tag of the older version is 412 in the newest.
    const etag = String(changed.headers.get('etag'));
    assert.equal((await patchJson(`${app.url}${location}`, { surface: 2 }, { 'api-version': NEXT, 'if-match': etag })).status, 412, version);
  }
});

test('the events of one change read in every version, each in its own shape', async () => {
  const made = await postJson(`${app.url}${GADGETS.path}`, { ...body, surface: 1 }, { 'api-version': NEXT });
  const id = ((await made.json()) as { id: number }).id;
  // On PostgreSQL an event shows once the sequencer has placed it: follow the feed until it does.
  await followUntil(app.url, '/api/events?type=gadget.created&limit=200', (events) => events.some((event) => event.data['id'] === id));
  for (const { version, field } of [...VERSIONS.map((v) => ({ version: v.version, field: 'finish' })), { version: NEXT, field: 'surface' }]) {
    const feed = await fetch(`${app.url}/api/events?type=gadget.created&limit=200`, { headers: { 'api-version': version } });
    const page = (await feed.json()) as unknown;
    const events = (Array.isArray(page) ? page : (page as { data: unknown[] }).data) as { data: Record<string, unknown> }[];
    const event = events.find((candidate) => candidate.data['id'] === id);
    assert.equal(event?.data[field], 1, `${version} shows ${field}`);
  }
});

test('a webhook pinned to the fourth version gets its deliveries in it, from deliveries started with the app\'s versions', async () => {
  const config = loadConfig({ ...app.database.env, ...PRIVATE_TARGETS });
  const deliveries = startWebhookDeliveries({ db: app.db, config, resources: app.app.resources, versions: app.app.versions });
  const receiver = await startReceiver();
  try {
    const hook = await postJson(`${app.url}/api/webhooks`, { url: receiver.url, events: ['gadget.created'], apiVersion: NEXT }, { 'api-version': NEXT });
    assert.equal(hook.status, 201, await hook.clone().text());
    assert.equal((await postJson(`${app.url}${GADGETS.path}`, { ...body, surface: 2 }, { 'api-version': NEXT })).status, 201);
    const [delivery] = (await receiver.waitFor(1)) as [Received];
    verifyDelivery(((await hook.json()) as { secret: string }).secret, delivery);
    assert.equal(delivery.headers['api-version'], NEXT);
    assert.equal((JSON.parse(delivery.body) as { data: Record<string, unknown> }).data['surface'], 2);
  } finally {
    await deliveries.stop();
    await receiver.close();
  }
});
