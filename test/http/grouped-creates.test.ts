import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// Concurrent creates share one commit: SQLite's group commit (one fsync), PostgreSQL's group insert
// (one multi-row statement with the events in it). Sharing must never cost a create its own answer:
// a create the database refuses fails alone, and every create acknowledged is stored with one event.

const DOOMED = 'Doomed lamp';
const PRODUCT_CREATED = 1;

let server: TestServer;
before(async () => {
  server = await startTestServer();
  // A rule only the database knows: the product named DOOMED is refused when it is inserted.
  if (server.database.engine === 'sqlite') {
    await server.database.sql(`CREATE TRIGGER refuse_doomed BEFORE INSERT ON products WHEN NEW.name = '${DOOMED}' BEGIN SELECT RAISE(ABORT, 'doomed'); END`);
  } else {
    await server.database.sql(
      `CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = '${DOOMED}' THEN RAISE EXCEPTION 'doomed' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$`,
    );
    await server.database.sql('CREATE TRIGGER refuse_doomed BEFORE INSERT ON products FOR EACH ROW EXECUTE FUNCTION refuse_doomed()');
  }
});
after(() => server.stop());

/** The ids in the data of every product_created event, in the feed's order. */
async function createdEventIds(): Promise<number[]> {
  const order = server.database.engine === 'sqlite' ? 'position' : 'tx, seq';
  const rows = await server.database.sql(`SELECT data FROM events WHERE type = ${PRODUCT_CREATED} ORDER BY ${order}`);
  return rows.map((row) => (JSON.parse(String(row[0])) as unknown[])[0] as number);
}

test('of creates sent at once, those the database refuses fail alone; the others are 201 and stored with one event each', async () => {
  // Several refused among many, so some of them surely share a group (test/unit/product-inserts.test.ts
  // shows the grouping itself without timing).
  const names = Array.from({ length: 60 }, (_, i) => (i % 12 === 5 ? DOOMED : `Grouped lamp ${i}`));
  const before = await createdEventIds();
  const responses = await Promise.all(names.map((name) => postJson(`${server.url}/api/products`, { name, priceInCents: 100 })));
  const bodies = await Promise.all(responses.map(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> })));
  bodies.forEach(({ status }, i) => {
    if (names[i] === DOOMED) assert.ok(status >= 500, `the refused create is a server error, got ${status}`);
    else assert.equal(status, 201, `${names[i]} is created`);
  });
  const created = bodies.filter(({ status }) => status === 201).map(({ body }) => body);
  assert.equal(created.length, names.filter((name) => name !== DOOMED).length);
  for (const product of created) {
    const stored = await fetch(`${server.url}/api/products/${product['id']}`);
    assert.equal(stored.status, 200);
    assert.deepEqual(await stored.json(), product, 'each 201 answered the row stored under its id');
  }
  const events = (await createdEventIds()).slice(before.length);
  const ids = created.map((product) => product['id'] as number).sort((a, b) => a - b);
  assert.deepEqual([...events].sort((a, b) => a - b), ids, 'exactly one event per acknowledged create, none for the refused one');
  assert.equal(await server.database.countRows('products', `name = '${DOOMED}'`), 0);
});

test('creates sent at once each get their own row, with the name and price each sent', async () => {
  // Names that an array literal must quote or escape (PostgreSQL's group insert sends the names as one array).
  const awkward = ['NULL', 'a "quoted" lamp', 'back\\slash', 'comma, lamp', '{braces}', '\u{1F600} lamp', "it's"];
  const sent = Array.from({ length: 30 }, (_, i) => ({ name: awkward[i % awkward.length] ?? '', priceInCents: 1000 + i }));
  const responses = await Promise.all(sent.map((product) => postJson(`${server.url}/api/products`, product)));
  const products = (await Promise.all(responses.map((response) => response.json()))) as Record<string, unknown>[];
  products.forEach((product, i) => {
    assert.equal(responses[i]?.status, 201);
    assert.deepEqual([product['name'], product['priceInCents']], [sent[i]?.name, sent[i]?.priceInCents]);
    assert.equal(responses[i]?.headers.get('location'), `/api/products/${product['id']}`);
  });
  assert.equal(new Set(products.map((product) => product['id'])).size, sent.length, 'no two creates share an id');
  for (const [i, product] of products.entries()) {
    const stored = (await (await fetch(`${server.url}/api/products/${product['id']}`)).json()) as Record<string, unknown>;
    assert.deepEqual([stored['name'], stored['priceInCents']], [sent[i]?.name, sent[i]?.priceInCents], 'stored as sent, under the id its 201 named');
  }
});
