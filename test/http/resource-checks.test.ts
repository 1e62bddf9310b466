import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { integerField, textField } from '../../src/resources/fields.ts';
import { repositoryOf } from '../../src/resources/repository.ts';
import { type Check, describeResource, type Stored } from '../../src/resources/resource.ts';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { GADGETS, RESOURCES } from '../support/resources.ts';
import { patchJson, postJson } from '../support/server.ts';

// A rule that needs another table (docs/extending.md): a throwaway `parts` resource whose `gadgetId`
// must name a gadget, checked in the write's own transaction on a create and on every change. The
// refusal is the check's own error; nothing is written; the referenced row is read for update, so a
// concurrent delete of the gadget waits for the write (or the write sees it gone).

const fields = {
  gadgetId: integerField({ min: 1, max: Number.MAX_SAFE_INTEGER, example: 8 }),
  label: textField({ min: 1, max: 40, example: 'hinge' }),
};
const gadgetExists: Check<Stored<typeof fields>> = {
  refusal: { code: 'unknown_gadget', status: 422, detail: 'gadgetId names no gadget.' },
  says: 'A part\'s `gadgetId` must name a gadget that exists: otherwise 422 `unknown_gadget`.',
  refuses: async (tx, part) => (await repositoryOf(tx.resources, GADGETS).findForUpdate(part.gadgetId)) === undefined,
};
const PARTS = describeResource({ plural: 'parts', singular: 'part', summary: 'Parts of gadgets: a test resource.', fields, checks: [gadgetExists], events: { created: 47, updated: 48, deleted: 49 }, exampleId: 5 });
const PARTS_TABLE = 'CREATE TABLE parts (id INTEGER PRIMARY KEY AUTOINCREMENT, gadget_id INTEGER NOT NULL, label TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1) STRICT';
const PARTS_TABLE_PG = 'CREATE TABLE parts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, gadget_id bigint NOT NULL, label text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, version integer NOT NULL DEFAULT 1)';

let app: AppServer;
before(async () => {
  const prepare = async (database: { engine: string; sql(statement: string): Promise<unknown> }): Promise<void> => {
    await database.sql(database.engine === 'sqlite' ? PARTS_TABLE : PARTS_TABLE_PG);
  };
  app = await startAppServer({}, { resources: [...RESOURCES, GADGETS, PARTS], prepare });
});
after(() => app.stop());

test('a part naming a gadget is created; one naming none is refused with the check\'s error, and nothing is stored', async () => {
  const gadget = await postJson(`${app.url}${GADGETS.path}`, { weightGrams: 5, size: { widthMm: 1, label: 'g' }, finish: 1 });
  const { id } = (await gadget.json()) as { id: number };
  const made = await postJson(`${app.url}/api/parts`, { gadgetId: id, label: 'hinge' });
  assert.equal(made.status, 201);
  const refused = await postJson(`${app.url}/api/parts`, { gadgetId: id + 1_000, label: 'orphan' });
  assert.equal(refused.status, 422);
  assert.equal(((await refused.json()) as { code: string }).code, 'unknown_gadget');
  assert.equal(await app.database.countRows('parts'), 1);
  // The same check on a change.
  const location = String(made.headers.get('location'));
  const moved = await patchJson(`${app.url}${location}`, { gadgetId: id + 1_000 });
  assert.deepEqual([moved.status, ((await moved.json()) as { code: string }).code], [422, 'unknown_gadget']);
  assert.equal((await patchJson(`${app.url}${location}`, { label: 'still' })).status, 200);
  // With an Idempotency-Key too: the check runs in the transaction that stores the response.
  const keyed = await postJson(`${app.url}/api/parts`, { gadgetId: id + 1_000, label: 'keyed' }, { 'idempotency-key': 'k-1' });
  assert.equal(keyed.status, 422);
});

test('the document lists the check\'s error on the resource\'s create and change', async () => {
  const document = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  for (const [path, method] of [['/api/parts', 'post'], ['/api/parts/{id}', 'patch']] as const) {
    assert.ok(JSON.stringify(document.paths[path]?.[method]?.responses['422']).includes('unknown_gadget'), `${method} ${path}`);
  }
});
