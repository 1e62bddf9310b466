import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { changeOf, createAt, eventTypesOf } from '../support/resource-requests.ts';
import { ALL_RESOURCES, refusals, validBody } from '../support/resources.ts';
import { scrape } from '../support/scrape.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// events_recorded_total{type}: one series per event type of every resource served (the test resource
// included), each counting its committed events once, and nothing for the writes that record none.

let server: TestServer;
let metricsUrl: string;
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' }, { resources: ALL_RESOURCES });
  assert.ok(server.metricsUrl !== null);
  metricsUrl = server.metricsUrl;
});
after(() => server.stop());

const counts = async (): Promise<number[][]> => {
  const scraped = await scrape(metricsUrl);
  assert.equal(scraped.families.get('events_recorded_total')?.type, 'counter');
  return ALL_RESOURCES.map((resource) => eventTypesOf(resource).map((type) => scraped.value('events_recorded_total', { type })));
};

test('events_recorded_total{type} counts each committed event once, under its own type, and nothing for writes that record none', async () => {
  assert.deepEqual(await counts(), ALL_RESOURCES.map(() => [0, 0, 0]));
  for (const [i, resource] of ALL_RESOURCES.entries()) {
    const url = `${server.url}${resource.path}`;
    const keyed = { 'idempotency-key': `counted-once-${resource.plural}` };
    const made = await createAt(server.url, resource, 1, keyed);
    assert.equal((await postJson(url, validBody(resource, 1), keyed)).headers.get('idempotent-replayed'), 'true', 'a replay');
    const patch = changeOf(resource, made.body);
    assert.equal((await patchJson(`${server.url}${made.path}`, patch)).status, 200);
    assert.equal((await patchJson(`${server.url}${made.path}`, patch)).status, 200, 'no change');
    assert.equal((await patchJson(`${server.url}${made.path}`, changeOf(resource, { ...made.body, ...patch }), { 'if-match': made.etag })).status, 412);
    const [refused] = refusals(resource);
    assert.ok(refused !== undefined);
    assert.equal((await postJson(url, { ...validBody(resource), [refused.field]: refused.value })).status, 422);
    assert.equal((await fetch(`${server.url}${made.path}`, { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(`${server.url}${made.path}`, { method: 'DELETE' })).status, 404);
    // This resource's three types once each; the resources still to come untouched.
    assert.deepEqual(await counts(), ALL_RESOURCES.map((_, j) => (j <= i ? [1, 1, 1] : [0, 0, 0])), resource.plural);
  }
});
