import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';
import { type ChangeRule, describeResource, type Resource, type Stored } from '../../src/resources/resource.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import { createResourceUseCases, type ResourceUseCases } from '../../src/resources/use-cases.ts';
import { validatorsOf } from '../../src/resources/validate.ts';
import type { Precondition } from '../../src/shared/changes.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { ALL_RESOURCES, changingPatch, GADGETS, GADGETS_TABLE, refusals, repository, validBody, NEWEST_VERSION } from '../support/resources.ts';

// The use cases' rules shared by every resource, on real storage: a migrated in-memory SQLite
// database (with the test resource's table), its repositories and its write transactions, as the
// service runs them. A resource's own rules are tested in its own file (archived-rule.test.ts).

const CREATED = new Date('2026-11-22T09:30:00.000Z');
const CHANGED = new Date('2026-11-23T10:00:00.000Z');

let db: DatabaseSync;
let storage: Storage;
// Resources are created at CREATED and changed at CHANGED, so a change is seen to move updatedAt.
let clock = CREATED;

before(() => {
  db = openDatabase(':memory:');
  migrate(db);
  db.exec(GADGETS_TABLE.sqlite);
  storage = createSqliteStorage(db, { resources: ALL_RESOURCES });
});
after(() => db.close());

const always: Precondition = () => true;
const never: Precondition = () => false;
const useCasesOf = (resource: Resource): ResourceUseCases => createResourceUseCases(resource, repository(storage, resource), () => clock);

async function store(resource: Resource, n = 0): Promise<AnyStored> {
  clock = CREATED;
  const stored = await storage.transaction((tx) => useCasesOf(resource).create(tx, validBody(resource, n, NEWEST_VERSION)));
  clock = CHANGED;
  return stored;
}

const rowCount = (table: string): number => Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);

for (const resource of ALL_RESOURCES) {
  test(`${resource.plural}: a change moves updatedAt to now and the version up by one; the precondition sees the version read for update`, async () => {
    const useCases = useCasesOf(resource);
    const stored = await store(resource);
    const [field, value] = Object.entries(changingPatch(resource, 0, NEWEST_VERSION))[0] ?? [];
    assert.ok(field !== undefined);
    await storage.transaction((tx) => useCases.change(tx, stored.id, { [field]: value }, always));
    const seen: number[] = [];
    const patch = changingPatch(resource, 5, NEWEST_VERSION);
    const outcome = await storage.transaction((tx) => useCases.change(tx, stored.id, patch, (version) => (seen.push(version), true)));
    assert.deepEqual(seen, [2]);
    const expected = { ...stored, ...patch, version: 3, updatedAt: CHANGED.toISOString() };
    assert.deepEqual(outcome, { kind: 'changed', resource: expected });
    assert.deepEqual(await repository(storage, resource).findById(stored.id), expected, 'what was stored is what was answered');
  });

  test(`${resource.plural}: a patch that changes no value writes nothing; order of refusals: not found, then the precondition`, async () => {
    const useCases = useCasesOf(resource);
    const stored = await store(resource, 7);
    const rows = rowCount(resource.plural);
    assert.deepEqual(await storage.transaction((tx) => useCases.change(tx, stored.id, validBody(resource, 7, NEWEST_VERSION), always)), { kind: 'unchanged', resource: stored });
    assert.deepEqual(await storage.transaction((tx) => useCases.change(tx, stored.id, {}, always)), { kind: 'unchanged', resource: stored });
    const missing = stored.id + 1_000;
    const change = (id: number, precondition: Precondition) => storage.transaction((tx) => useCases.change(tx, id, changingPatch(resource, 7, NEWEST_VERSION), precondition));
    const remove = (id: number, precondition: Precondition) => storage.transaction((tx) => useCases.remove(tx, id, precondition));
    assert.deepEqual(await change(missing, never), { kind: 'not_found' });
    assert.deepEqual(await change(stored.id, never), { kind: 'precondition_failed' });
    assert.deepEqual(await remove(stored.id, never), { kind: 'precondition_failed' });
    assert.deepEqual(await remove(missing, always), { kind: 'not_found' });
    assert.deepEqual(await repository(storage, resource).findById(stored.id), stored, 'the refusals left it as it was');
    assert.equal(rowCount(resource.plural), rows);
    assert.deepEqual(await remove(stored.id, always), { kind: 'removed' });
    assert.equal(await repository(storage, resource).findById(stored.id), undefined);
    assert.equal(rowCount(resource.plural), rows - 1);
  });

  test(`${resource.plural}: a create fills in the defaults of the fields left out`, async () => {
    const defaults = Object.entries(resource.fields).filter(([, field]) => field.default !== undefined);
    const body = Object.fromEntries(Object.entries(validBody(resource, 2, NEWEST_VERSION)).filter(([name]) => !defaults.some(([left]) => left === name)));
    const stored = await storage.transaction((tx) => useCasesOf(resource).create(tx, body));
    for (const [name, field] of defaults) assert.equal(stored[name], field.default, name);
    assert.deepEqual(await repository(storage, resource).findById(stored.id), stored);
  });

  test(`${resource.plural}: patch validation uses the create rules: every member optional, null a type error, unknown members refused`, () => {
    const { validateNew, validatePatch } = validatorsOf(resource);
    assert.deepEqual(validatePatch({}), { ok: true, value: {} });
    const fields = Object.keys(resource.fields);
    const bad = refusals(resource, NEWEST_VERSION).filter((refusal) => refusal.pointer === `/${refusal.field}`);
    const body = { ...Object.fromEntries(bad.map((refusal) => [refusal.field, refusal.value])), [fields[0] ?? 'x']: null, extra: true };
    const refused = validatePatch(body);
    const codes = refused.ok ? [] : refused.errors.map((e) => ('pointer' in e ? e.pointer : ''));
    assert.ok(codes.includes(`/${fields[0]}`) && codes.includes('/extra'), JSON.stringify(refused));
    // Every field error at once, in a create too, where a required field left out is `required`.
    const required = Object.entries(resource.fields).filter(([, field]) => field.required && field.default === undefined).map(([name]) => name);
    const created = validateNew({ extra: true });
    const createdCodes = created.ok ? [] : created.errors.map((e) => `${'pointer' in e ? e.pointer : ''} ${e.code}`);
    assert.deepEqual(createdCodes, [...required.map((name) => `/${name} required`), '/extra unknown_field']);
    assert.deepEqual(validatePatch([]), { ok: false, errors: [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }] });
  });

  test(`${resource.plural}: every value a field refuses is refused with its code, at its pointer, on create and patch`, () => {
    const { validateNew, validatePatch } = validatorsOf(resource);
    for (const { field, value, code, pointer } of refusals(resource, NEWEST_VERSION)) {
      for (const [kind, result] of [['create', validateNew({ ...validBody(resource, 0, NEWEST_VERSION), [field]: value })], ['patch', validatePatch({ [field]: value })]] as const) {
        const found = result.ok ? [] : result.errors.map((e) => `${'pointer' in e ? e.pointer : ''} ${e.code}`);
        assert.deepEqual(found, [`${pointer} ${code}`], `${kind} ${field}=${JSON.stringify(value)}`);
      }
    }
  });
}

// The test resource with a rule of its own: what the use cases do with any resource's rules.
const heavier: ChangeRule<Stored<typeof GADGETS.fields>> = {
  refusal: { code: 'heavier', status: 409, detail: 'A gadget never gets heavier.' },
  says: 'A gadget never gets heavier.',
  breaks: (current, next) => next.weightGrams > current.weightGrams,
};
const RULED = describeResource({ ...GADGETS, rules: [heavier] });

test('a change a rule of the resource breaks is refused with the rule\'s refusal, and writes nothing; one it allows is made', async () => {
  const useCases = useCasesOf(RULED);
  const stored = await store(RULED, 5);
  const heavy = { weightGrams: (stored['weightGrams'] as number) + 1 };
  assert.deepEqual(await storage.transaction((tx) => useCases.change(tx, stored.id, heavy, always)), { kind: 'refused', refusal: heavier.refusal });
  assert.deepEqual(await repository(storage, RULED).findById(stored.id), stored, 'nothing written');
  const light = { weightGrams: (stored['weightGrams'] as number) - 1 };
  const outcome = await storage.transaction((tx) => useCases.change(tx, stored.id, light, always));
  assert.equal(outcome.kind, 'changed');
});
