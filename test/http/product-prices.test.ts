import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import { type OpenStream, openStream } from '../support/event-stream.ts';
import { followUntil } from '../support/events.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// Products' prices across versions (src/products/price-with-currency.ts): `price: { amount, currency }`
// from 2026-12-05 on, `priceInCents` before; the rules of each version's body, the data kept right
// whichever version writes, and entity tags apart where the representation differs.

const NEWEST = VERSIONS.at(-1)?.version ?? '';
const BEFORE = VERSIONS.at(-2)?.version ?? '';
const FIRST = VERSIONS[0]?.version ?? '';
const newest = { 'api-version': NEWEST };
type Problem = { code: string; errors?: { pointer: string; code: string; detail: string }[] };
const pointers = async (response: Response): Promise<string[]> => ((await response.json()) as Problem).errors?.map((e) => `${e.pointer} ${e.code}`) ?? [];

let server: TestServer;
before(async () => {
  // Streams in every version at once, live and resumed beside them: more than the default 5 per caller.
  server = await startTestServer({ SVC_DEFAULT_CURRENCY: 'CHF', SVC_STREAMS_PER_CALLER: '10' });
});
after(() => server.stop());

async function create(body: unknown, headers: Record<string, string> = newest): Promise<{ id: number; etag: string; body: Record<string, unknown> }> {
  const response = await postJson(`${server.url}/api/products`, body, headers);
  assert.equal(response.status, 201, await response.clone().text());
  const made = (await response.json()) as Record<string, unknown>;
  return { id: made['id'] as number, etag: String(response.headers.get('etag')), body: made };
}

test('the newest version takes and shows price: { amount, currency }, in the place priceInCents had', async () => {
  const made = await create({ name: 'Lamp', price: { amount: 2499, currency: 'EUR' } });
  assert.deepEqual(Object.keys(made.body), ['id', 'name', 'price', 'status', 'createdAt', 'updatedAt']);
  assert.deepEqual(made.body['price'], { amount: 2499, currency: 'EUR' });
});

test('its errors point inside the price; priceInCents is unknown there; null is a type error', async () => {
  const bad = async (body: unknown): Promise<string[]> => pointers(await postJson(`${server.url}/api/products`, body, newest));
  assert.deepEqual(await bad({ name: 'x', price: { amount: -1, currency: 'XAU' } }), ['/price/amount too_small', '/price/currency invalid_enum']);
  assert.deepEqual(await bad({ name: 'x', price: { amount: 1 } }), ['/price/currency required']);
  assert.deepEqual(await bad({ name: 'x', price: { amount: 1, currency: 'EUR', tax: 0 } }), ['/price/tax unknown_field']);
  assert.deepEqual(await bad({ name: 'x', price: { amount: 1.5, currency: 7 } }), ['/price/amount not_integer', '/price/currency type']);
  assert.deepEqual(await bad({ name: 'x', price: null }), ['/price type']);
  assert.deepEqual(await bad({ name: 'x', priceInCents: 1 }), ['/price required', '/priceInCents unknown_field']);
  const made = await create({ name: 'Patched', price: { amount: 1, currency: 'EUR' } });
  const patch = async (body: unknown): Promise<string[]> => pointers(await patchJson(`${server.url}/api/products/${made.id}`, body, newest));
  assert.deepEqual(await patch({ price: null }), ['/price type']);
  assert.deepEqual(await patch({ price: { amount: null, currency: null } }), ['/price/amount type', '/price/currency type']);
  assert.deepEqual(await patch({ priceInCents: 5 }), ['/priceInCents unknown_field']);
});

test('in the versions before, errors point at priceInCents, as they always did', async () => {
  for (const version of [FIRST, BEFORE]) {
    const response = await postJson(`${server.url}/api/products`, { name: 'x', priceInCents: -1, price: { amount: 1 } }, { 'api-version': version });
    const problem = (await response.json()) as Problem;
    assert.deepEqual(problem.errors?.map((e) => `${e.pointer} ${e.code} ${e.detail}`), ['/priceInCents too_small priceInCents must be at least 0', '/price unknown_field price is not a known field'], version);
  }
});

test('a patch changes only what it names: the amount, the currency, or both; an old version\'s priceInCents keeps the currency', async () => {
  const made = await create({ name: 'Yen', price: { amount: 500, currency: 'JPY' } });
  const url = `${server.url}/api/products/${made.id}`;
  const priceAfter = async (body: unknown, headers: Record<string, string>): Promise<unknown> => {
    const response = await patchJson(url, body, headers);
    assert.equal(response.status, 200, await response.clone().text());
    return ((await (await fetch(url, { headers: newest })).json()) as Record<string, unknown>)['price'];
  };
  assert.deepEqual(await priceAfter({ price: { amount: 5 } }, newest), { amount: 5, currency: 'JPY' });
  assert.deepEqual(await priceAfter({ price: { currency: 'USD' } }, newest), { amount: 5, currency: 'USD' });
  assert.deepEqual(await priceAfter({ priceInCents: 700 }, { 'api-version': FIRST }), { amount: 700, currency: 'USD' });
  assert.deepEqual(await priceAfter({ price: { amount: 9, currency: 'GBP' } }, newest), { amount: 9, currency: 'GBP' });
  // The versions before show the amount, whatever the currency.
  assert.equal(((await (await fetch(url)).json()) as Record<string, unknown>)['priceInCents'], 9);
});

test('a product created in a version before gets SVC_DEFAULT_CURRENCY', async () => {
  const made = await create({ name: 'Franc', priceInCents: 100 }, { 'api-version': BEFORE });
  const read = (await (await fetch(`${server.url}/api/products/${made.id}`, { headers: newest })).json()) as Record<string, unknown>;
  assert.deepEqual(read['price'], { amount: 100, currency: 'CHF' });
});

test('the archived rule covers the whole price: its currency too, in every version', async () => {
  const made = await create({ name: 'Old', price: { amount: 100, currency: 'EUR' }, status: 2 });
  const url = `${server.url}/api/products/${made.id}`;
  for (const body of [{ price: { currency: 'USD' } }, { price: { amount: 101 } }]) {
    const refused = await patchJson(url, body, newest);
    assert.equal(refused.status, 409);
    assert.equal(((await refused.json()) as Problem).code, 'product_archived');
  }
  assert.equal((await patchJson(url, { priceInCents: 101 }, { 'api-version': FIRST })).status, 409);
  // The same price is no change; unarchiving and repricing in one step is allowed.
  assert.equal((await patchJson(url, { price: { currency: 'EUR' } }, newest)).status, 200);
  assert.equal((await patchJson(url, { status: 1, price: { currency: 'USD' } }, newest)).status, 200);
});

test('entity tags differ where the representation differs: a tag read before 2026-12-05 is 412 in it, and 304 where the bytes are the same', async () => {
  const made = await create({ name: 'Tagged', priceInCents: 10 }, { 'api-version': FIRST });
  const url = `${server.url}/api/products/${made.id}`;
  const tags = await Promise.all(VERSIONS.map(async ({ version }) => (await fetch(url, { headers: { 'api-version': version } })).headers.get('etag')));
  assert.equal(tags[0], made.etag);
  assert.equal(tags[1], tags[0], 'the first two versions show a product alike');
  assert.notEqual(tags.at(-1), tags[0]);
  assert.equal((await fetch(url, { headers: { 'api-version': BEFORE, 'if-none-match': made.etag } })).status, 304);
  assert.equal((await fetch(url, { headers: { ...newest, 'if-none-match': made.etag } })).status, 200);
  assert.equal((await patchJson(url, { name: 'x' }, { ...newest, 'if-match': made.etag })).status, 412);
  assert.equal((await patchJson(url, { name: 'x' }, { ...newest, 'if-match': String(tags.at(-1)) })).status, 200);
});

type Event = { id: string; type: string; data: Record<string, unknown> };

test('one event read in every version: the same id, type and time; its data as that version shows the product', async () => {
  const made = await postJson(`${server.url}/api/products`, { name: 'Evented', price: { amount: 42, currency: 'SEK' } }, { 'api-version': NEWEST });
  const { id } = (await made.json()) as { id: number };
  await followUntil(server.url, '/api/events', (seen) => seen.some((event) => event.data['id'] === id));
  const read = async (version: string): Promise<{ event: Event | undefined; listed: boolean }> => {
    const page = (await (await fetch(`${server.url}/api/events?type=product.created&limit=200`, { headers: { 'api-version': version } })).json()) as Event[] | { data: Event[] };
    return { event: (Array.isArray(page) ? page : page.data).find((event) => event.data['id'] === id), listed: Array.isArray(page) };
  };
  const events = await Promise.all(VERSIONS.map(({ version }) => read(version)));
  events.forEach(({ listed }, i) => assert.equal(listed, i === 0, `${VERSIONS[i]?.version}: the feed's page is an array only in the first version`));
  const [first, second, newest] = events.map(({ event }) => event);
  assert.ok(first !== undefined && second !== undefined && newest !== undefined);
  assert.deepEqual([second.id, second.type, newest.id, newest.type], [first.id, first.type, first.id, first.type]);
  assert.equal(first.data['priceInCents'], 42);
  assert.deepEqual(second.data, first.data);
  assert.deepEqual(newest.data['price'], { amount: 42, currency: 'SEK' });
});


// The Event of product `id`'s creation as `stream` sent it: the message's data, parsed, and its text.
async function createdOn(stream: OpenStream, id: number): Promise<{ event: Event; text: string }> {
  for (let count = 1; ; count++) {
    const messages = await stream.waitFor(count);
    const text = messages.map((message) => message.data).find((data) => {
      const event = JSON.parse(data) as Event;
      return event.type === 'product.created' && event.data['id'] === id;
    });
    if (text !== undefined) return { event: JSON.parse(text) as Event, text };
  }
}

test('the live stream sends each Event in the reader\'s version, as the feed does: live, and resumed from Last-Event-ID', async () => {
  const open = (headers: Record<string, string>): Promise<OpenStream[]> => Promise.all(VERSIONS.map(({ version }) => openStream(`${server.url}/api/events`, { 'api-version': version, ...headers })));
  const idOf = async (made: { id: number }): Promise<string> => {
    const { events } = await followUntil(server.url, '/api/events', (seen) => seen.some((event) => event.type === 'product.created' && event.data['id'] === made.id));
    return (events.find((event) => event.type === 'product.created' && event.data['id'] === made.id) as Event).id;
  };
  // Recorded before any stream is open: no reader has it in memory, so a stream resumed after it reads the database.
  const before = await idOf(await create({ name: 'Before the streams', price: { amount: 1, currency: 'EUR' } }));
  const streams = await open({});
  try {
    // Recorded while streams are open: the process's reader keeps it among its recent events.
    const between = await idOf(await create({ name: 'Between', price: { amount: 2, currency: 'EUR' } }));
    const { id } = await create({ name: 'Streamed', price: { amount: 77, currency: 'NOK' } });
    // The feed's bytes of the event in each version: what every stream of that version must send.
    const feedText = async (version: string): Promise<string> => {
      const page = (await (await fetch(`${server.url}/api/events?after=${between}&limit=1`, { headers: { 'api-version': version } })).json()) as Event[] | { data: Event[] };
      return JSON.stringify((Array.isArray(page) ? page : page.data)[0]);
    };
    const expected = await Promise.all(VERSIONS.map(({ version }) => feedText(version)));
    const check = async (opened: OpenStream[], how: string): Promise<void> => {
      opened.forEach((stream, i) => assert.deepEqual([stream.status, stream.headers['api-version']], [200, VERSIONS[i]?.version], how));
      const sent = await Promise.all(opened.map((stream) => createdOn(stream, id)));
      sent.forEach(({ text }, i) => assert.equal(text, expected[i], `${how}, ${VERSIONS[i]?.version}`));
      const [first, second, last] = sent.map(({ event }) => event.data);
      assert.deepEqual([first?.['priceInCents'], second?.['priceInCents'], last?.['price']], [77, 77, { amount: 77, currency: 'NOK' }], how);
    };
    await check(streams, 'live');
    for (const [after, how] of [[between, 'resumed from the reader\'s recent events'], [before, 'resumed from the database']] as const) {
      const resumed = await open({ 'last-event-id': after });
      streams.push(...resumed);
      await check(resumed, how);
    }
  } finally {
    for (const stream of streams) stream.close();
  }
});
