import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Field, ScalarField } from '../../src/resources/fields.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { ALL_RESOURCES, DEFAULT_VERSION, NEWEST_VERSION, refusals, validBody, fieldsIn } from '../support/resources.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// The field rules of docs/api.md end to end, on every field of every resource served (the test
// resource's object members and enum without a default included): what a client sends as JSON text,
// each value derived from the field's own bounds, and what it gets back.
let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

async function errorsFor(resource: Resource, json: string): Promise<string[]> {
  const response = await postJson(`${server.url}${resource.path}`, json);
  const body = (await response.json()) as { errors?: { pointer: string; code: string }[] };
  if (response.status === 201) return [];
  assert.equal(response.status, 422, json);
  return (body.errors ?? []).map((e) => `${e.pointer} ${e.code}`);
}

const EMOJI = '\u{1F600}';
const text = (value: string): string => JSON.stringify(value);
const bounds = (field: ScalarField<unknown>): { min: number; max: number } => {
  const schema = field.schema as { minLength?: number; maxLength?: number; minimum?: number; maximum?: number };
  return { min: schema.minLength ?? schema.minimum ?? 0, max: schema.maxLength ?? schema.maximum ?? 0 };
};

/** JSON texts of values of a scalar field, each with the code it answers (null: accepted), from the field's bounds. */
function scalarCases(field: ScalarField<unknown>): [string, string | null][] {
  const { min, max } = bounds(field);
  if (field.choices !== undefined) {
    const outside = [Math.max(...field.choices) + 1, Math.min(...field.choices) - 1];
    return [...field.choices.map((choice): [string, null] => [String(choice), null]), ...outside.map((value): [string, string] => [String(value), 'invalid_enum']),
      [text(String(field.choices[0])), 'type'], ['null', 'type'], ['1.5', 'invalid_enum']];
  }
  if (field.type === 'integer') {
    return [[String(min), null], [String(max), null], [String(min - 1), 'too_small'], [String(max + 1), 'too_large'], [String(min + 0.5), 'not_integer'],
      [text(String(min)), 'type'], ['null', 'type'], ['true', 'type'], ['1e400', 'too_large']];
  }
  const short = min > 0 ? 'too_short' : null;
  return [
    [text('a'.repeat(Math.max(min, 1))), null], [text('a'.repeat(max)), null], [text(EMOJI.repeat(max)), null],
    [text('a'.repeat(max + 1)), 'too_long'], [text(EMOJI.repeat(max + 1)), 'too_long'], [text('   '), short], [text(''), short],
    ['"a\\u0000b"', 'invalid_characters'], ['"a\\u001fb"', 'invalid_characters'], ['"a\\u007fb"', 'invalid_characters'],
    ['"a\\u009fb"', 'invalid_characters'], ['"a\\ud800b"', 'invalid_characters'], ['"a\\u00a0b"', null],
    ['null', 'type'], ['42', 'type'], ['["a"]', 'type'],
  ];
}

/** Every place a scalar value goes: a scalar field, or a member of an object field. */
function scalarSlots(resource: Resource): { at: string[]; field: ScalarField<unknown> }[] {
  return Object.entries(fieldsIn(resource)).flatMap(([name, field]: [string, Field<unknown>]) =>
    field.kind === 'scalar' ? [{ at: [name], field }] : Object.entries(field.members).map(([member, spec]) => ({ at: [name, member], field: spec })));
}

/**
 * Where each value goes and its cases, each with the errors it answers: every scalar slot, and an
 * object field as a whole (anything but an object is a type error; a member it does not have is unknown).
 */
function casesOf(resource: Resource): { at: string[]; cases: [string, string[]][] }[] {
  const wholes = Object.entries(fieldsIn(resource)).flatMap(([name, field]) => {
    if (field.kind !== 'object') return [];
    const extra = JSON.stringify({ ...(validBody(resource)[name] as object), [`${name}Extra`]: 1 });
    const cases: [string, string[]][] = [...['"x"', '42', '[]', 'null'].map((json): [string, string[]] => [json, [`/${name} type`]]), [extra, [`/${name}/${name}Extra unknown_field`]]];
    return [{ at: [name], cases }];
  });
  const scalars = scalarSlots(resource).map(({ at, field }) => ({
    at,
    cases: scalarCases(field).map(([json, code]): [string, string[]] => [json, code === null ? [] : [`/${at.join('/')} ${code}`]]),
  }));
  return [...wholes, ...scalars];
}

// The n-th valid body with the value at `at` replaced by a JSON text (or left out): JSON texts such as 1e400 have no JavaScript value.
function bodyWith(resource: Resource, at: readonly string[], json: string | undefined): string {
  const SLOT = 'SLOT-7f3a';
  const body = validBody(resource, 1);
  const [name, member] = at as [string, string | undefined];
  const holder = member === undefined ? body : ((body[name] = { ...(body[name] as object) }) as Record<string, unknown>);
  const key = member ?? name;
  if (json === undefined) delete holder[key];
  else holder[key] = SLOT;
  return JSON.stringify(body).replace(`"${SLOT}"`, json ?? '');
}

for (const resource of ALL_RESOURCES) {
  test(`${resource.plural}: every rule of every field, each value from the field's own bounds`, async () => {
    for (const { at, cases } of casesOf(resource)) {
      for (const [value, errors] of cases) assert.deepEqual(await errorsFor(resource, bodyWith(resource, at, value)), errors, `/${at.join('/')}: ${value.slice(0, 40)}`);
    }
  });

  test(`${resource.plural}: a field or member left out is required, unless the field has a default, which is stored`, async () => {
    for (const [name, field] of Object.entries(fieldsIn(resource))) {
      const missing = await errorsFor(resource, bodyWith(resource, [name], undefined));
      assert.deepEqual(missing, field.default === undefined ? [`/${name} required`] : [], name);
      if (field.kind === 'object') {
        for (const member of Object.keys(field.members)) assert.deepEqual(await errorsFor(resource, bodyWith(resource, [name, member], undefined)), [`/${name}/${member} required`]);
      }
      if (field.default !== undefined) {
        const created = await postJson(`${server.url}${resource.path}`, bodyWith(resource, [name], undefined));
        assert.equal(((await created.json()) as Record<string, unknown>)[name], field.default, `${name} defaults`);
      }
    }
  });

  test(`${resource.plural}: a text is stored and read back trimmed`, async () => {
    for (const { at, field } of scalarSlots(resource).filter((slot) => slot.field.type === 'text')) {
      const kept = 'b'.repeat(bounds(field).max);
      const created = await postJson(`${server.url}${resource.path}`, bodyWith(resource, at, text(`  ${kept}\n`)));
      assert.equal(created.status, 201, at.join('/'));
      const read = (await (await fetch(`${server.url}${created.headers.get('location')}`)).json()) as Record<string, unknown>;
      const [name, member] = at as [string, string | undefined];
      assert.equal(member === undefined ? read[name] : (read[name] as Record<string, unknown>)[member], kept, at.join('/'));
    }
  });

  test(`${resource.plural}: a representation is the description's fields in their order, an object field's members too, in the oldest and the newest version`, async () => {
    for (const version of [DEFAULT_VERSION, NEWEST_VERSION]) {
      const headers = { 'api-version': version.id };
      const body = validBody(resource, 4, version);
      const created = await postJson(`${server.url}${resource.path}`, body, headers);
      assert.equal(created.status, 201, version.id);
      const text = await (await fetch(`${server.url}${created.headers.get('location')}`, { headers })).text();
      const { id, createdAt, updatedAt } = JSON.parse(text) as Record<string, unknown>;
      assert.equal(text, JSON.stringify({ id, ...body, createdAt, updatedAt }), version.id);
    }
  });

  test(`${resource.plural}: a typo is reported, not dropped, alongside every other error`, async () => {
    const [first, ...others] = Object.keys(fieldsIn(resource)) as [string, ...string[]];
    const body: Record<string, unknown> = {};
    const expected = fieldsIn(resource)[first]?.default === undefined ? [`/${first} required`] : [];
    for (const field of others) {
      const refusal = refusals(resource).find((candidate) => candidate.field === field);
      assert.ok(refusal !== undefined);
      body[field] = refusal.value;
      expected.push(`${refusal.pointer} ${refusal.code}`);
    }
    // The field's name as another spelling would write it: snake_case, or with a trailing underscore.
    const typo = /[A-Z]/.test(first) ? first.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) : `${first}_`;
    body[typo] = validBody(resource)[first];
    assert.deepEqual(await errorsFor(resource, JSON.stringify(body)), [...expected, `/${typo} unknown_field`]);
  });
}
