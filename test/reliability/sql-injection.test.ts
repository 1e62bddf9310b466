import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { bodyAllowing } from '../support/change-samples.ts';
import { isFreeText, maxLength, type Place, patchAt, placesOf, textPlacesOf, valueAt, withValue } from '../support/resource-places.ts';
import { ALL_RESOURCES, NEWEST_VERSION, validBody } from '../support/resources.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';
import { countRows, integrityCheck } from './row-rules.ts';

// SQL injection must be inert everywhere a client can put text: stored and returned verbatim in every
// text of every resource served (the service's and the throwaway one), refused (400/404/422) in every
// other field, in parameters, keys and path segments, and never executed.

// {a} and {b} are tables the server keeps: two resources' (any two: the statements must never run).
const TEMPLATES = [
  "'); DROP TABLE {a};--",
  "Robert'); DROP TABLE {b}; --",
  "' OR '1'='1",
  '" OR ""="',
  '1; DELETE FROM {a}',
  "' UNION SELECT name, sql, 1, 1, 1 FROM sqlite_master --",
  "'||(SELECT sqlite_version())||'",
  "x'; ATTACH DATABASE '/tmp/pwned.db' AS pwned; --",
  '*/ DROP TABLE {a}; /*',
  "'; PRAGMA writable_schema = 1; --",
  '?1 ?2 :name @name $name',
  '%_\\ LIKE ESCAPE',
  "admin'--",
  "1' AND randomblob(1000000000) AND '1",
];
const PAYLOADS = TEMPLATES.map((template, i) =>
  template.replaceAll('{a}', ALL_RESOURCES[i % ALL_RESOURCES.length]?.plural ?? '').replaceAll('{b}', ALL_RESOURCES[(i + 1) % ALL_RESOURCES.length]?.plural ?? ''));

// The payload as a text of `place` takes it: no longer than its longest, trimmed (a short text gets the payload's start).
const fitted = (payload: string, place: Place): string => [...payload].slice(0, maxLength(place)).join('').trim();

let server: TestServer;
let tables: unknown[];
const tablesOf = (): unknown[] => {
  const db = new DatabaseSync(server.dbPath, { readOnly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row['name']);
  } finally {
    db.close();
  }
};
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
  tables = tablesOf();
});
after(() => server.stop());

const created = new Map<Resource, number>(ALL_RESOURCES.map((resource) => [resource, 0]));
const count = (resource: Resource): void => void created.set(resource, (created.get(resource) ?? 0) + 1);
const otherPlaces = (resource: Resource): Place[] => placesOf(resource).filter((place) => !isFreeText(place));
// A text where a code from a list belongs is not one of them; anything else is not even of its type.
const refusalOf = (place: Place): string => (place.spec.type === 'text' ? 'invalid_enum' : 'type');
// The places are the newest version's (every member of an object field has its own): so are the requests.
const VERSION = { 'api-version': NEWEST_VERSION.id };
const bodyOf = (resource: Resource, n = 0): Record<string, unknown> => validBody(resource, n, NEWEST_VERSION);

test('every resource serves a text to inject into, or another field that refuses it', () => {
  for (const resource of ALL_RESOURCES) assert.ok(placesOf(resource).length > 0, resource.plural);
  assert.ok(ALL_RESOURCES.every((resource) => textPlacesOf(resource).length > 0), 'each resource here has a text (a member of an object field counts)');
});

for (const resource of ALL_RESOURCES) {
  const { path } = resource;
  test(`${path}: injection in every text is stored and returned verbatim, on create, by id and in lists`, async () => {
    const answers: unknown[] = [];
    for (const place of textPlacesOf(resource)) {
      for (const payload of PAYLOADS) {
        const response = await postJson(`${server.url}${path}`, withValue(bodyOf(resource), place, fitted(payload, place)), VERSION);
        assert.equal(response.status, 201, `${place.pointer}: ${payload}`);
        const item = (await response.json()) as Record<string, unknown>;
        assert.equal(valueAt(item, place), fitted(payload, place));
        count(resource);
        answers.push(item);
        assert.deepEqual(await (await fetch(`${server.url}${path}/${String(item['id'])}`, { headers: VERSION })).json(), item);
      }
    }
    const list = (await (await fetch(`${server.url}${path}?limit=200`, { headers: VERSION })).json()) as { data: unknown[] };
    assert.deepEqual(list.data.reverse(), answers);
  });

  test(`${path}: injection in its other fields and in member names is refused; in Idempotency-Key it is inert`, async () => {
    for (const payload of PAYLOADS) {
      for (const place of otherPlaces(resource)) {
        const refused = await postJson(`${server.url}${path}`, withValue(bodyOf(resource), place, payload), VERSION);
        assert.equal(refused.status, 422, `${place.pointer}: ${payload}`);
        assert.deepEqual(((await refused.json()) as { errors: { pointer: string; code: string }[] }).errors.map((e) => `${e.pointer} ${e.code}`), [`${place.pointer} ${refusalOf(place)}`]);
      }
      const asMember = await postJson(`${server.url}${path}`, { ...bodyOf(resource), [payload]: 1 }, VERSION);
      assert.equal(asMember.status, 422);
      assert.equal(((await asMember.json()) as { errors: { code: string }[] }).errors[0]?.code, 'unknown_field');
    }
    // Keys are visible ASCII without spaces: the nearest thing to an injection a valid key can carry.
    const key = `k');DROP/**/TABLE/**/idempotency_keys;--${resource.plural}`;
    const first = await postJson(`${server.url}${path}`, bodyOf(resource, 2), { ...VERSION, 'idempotency-key': key });
    const again = await postJson(`${server.url}${path}`, bodyOf(resource, 2), { ...VERSION, 'idempotency-key': key });
    assert.equal(first.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), await first.json());
    count(resource);
  });

  test(`${path}: injection in a patched text is stored verbatim; in its other patched fields and If-Match it is refused`, async () => {
    const texts = textPlacesOf(resource);
    const made = await postJson(`${server.url}${path}`, bodyAllowing(resource, texts.flatMap((place) => PAYLOADS.map((payload) => patchAt(place, fitted(payload, place)))), NEWEST_VERSION), VERSION);
    assert.equal(made.status, 201);
    const { id } = (await made.json()) as { id: number };
    count(resource);
    const patch = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
      fetch(`${server.url}${path}/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', ...VERSION, ...headers }, body: JSON.stringify(body) });
    for (const payload of PAYLOADS) {
      for (const place of texts) {
        const changed = await patch(patchAt(place, fitted(payload, place)));
        assert.equal(changed.status, 200, `${place.pointer}: ${payload}`);
        assert.equal(valueAt((await changed.json()) as Record<string, unknown>, place), fitted(payload, place));
      }
      for (const place of otherPlaces(resource)) assert.equal((await patch(patchAt(place, payload))).status, 422, `${place.pointer}: ${payload}`);
      assert.equal((await patch({ [payload]: 1 })).status, 422);
      // Quoted, with the characters a tag may not hold removed, it is a well-formed tag that matches
      // nothing; as it is, it is malformed.
      const [text] = texts;
      const harmless = text === undefined ? {} : patchAt(text, 'x');
      assert.equal((await patch(harmless, { 'if-match': `"${payload.replace(/[^\x21\x23-\x7e]/g, '')}"` })).status, 412);
      assert.equal((await patch(harmless, { 'if-match': payload })).status, 400);
    }
    const read = (await (await fetch(`${server.url}${path}/${id}`, { headers: VERSION })).json()) as Record<string, unknown>;
    for (const place of texts) assert.equal(valueAt(read, place), fitted(PAYLOADS.at(-1) ?? '', place));
  });

  test(`${path}: injection in limit, cursor, each filter and {id} is 400 or 404, never a query`, async () => {
    for (const payload of PAYLOADS) {
      const encoded = encodeURIComponent(payload);
      assert.equal((await fetch(`${server.url}${path}?limit=${encoded}`)).status, 400);
      assert.equal((await fetch(`${server.url}${path}?cursor=${encoded}`)).status, 400);
      const forged = Buffer.from(`${resource.plural}:1 ${payload}`).toString('base64url');
      assert.equal((await fetch(`${server.url}${path}?cursor=${forged}`)).status, 400);
      for (const filter of resource.filters) assert.equal((await fetch(`${server.url}${path}?${filter}=${encoded}`)).status, 400, filter);
      assert.equal((await fetch(`${server.url}${path}/${encoded}`)).status, 404);
      assert.equal((await fetch(`${server.url}${path}/1${encoded}`)).status, 404);
      assert.equal((await fetch(`${server.url}${path}/${encoded}`, { method: 'DELETE' })).status, 404);
    }
  });
}

test('afterwards every table is there, each resource\'s holds exactly what was created, and the file is sound', () => {
  // sqlite_sequence is SQLite's own: AUTOINCREMENT keeps the highest id ever given there.
  assert.deepEqual(tablesOf(), tables);
  for (const resource of ALL_RESOURCES) assert.ok(tables.includes(resource.plural), resource.plural);
  for (const [resource, made] of created) assert.equal(countRows(server.dbPath, resource.plural), made, resource.plural);
  assert.equal(countRows(server.dbPath, 'idempotency_keys'), ALL_RESOURCES.length);
  // Every create recorded its one created event, whatever its texts held.
  const db = new DatabaseSync(server.dbPath, { readOnly: true });
  const types = ALL_RESOURCES.map((resource) => resource.events.created).join(', ');
  const createdEvents = db.prepare(`SELECT count(*) AS n FROM events WHERE type IN (${types})`).get()?.['n'];
  db.close();
  assert.equal(createdEvents, [...created.values()].reduce((sum, made) => sum + made, 0));
  assert.deepEqual(integrityCheck(server.dbPath), ['ok']);
});
