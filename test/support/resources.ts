// Every resource the shared tests run over: the service's own (src/registry.ts), and a throwaway one
// this file describes, whose fields have no `name`, whose event types are its own, and which no
// migration of the service knows: a test makes its table itself (GADGETS_TABLE). What a test needs of
// a resource it derives from the description, so a resource added later is covered without being named.
import { RESOURCES } from '../../src/registry.ts';
import type { Field, ScalarField } from '../../src/resources/fields.ts';
import { choiceField, integerField, objectField, textField } from '../../src/resources/fields.ts';
import { type ListFilter, repositoryOf, type ResourceRepositories, type ResourceRepository } from '../../src/resources/repository.ts';
import { describeResource, type Resource } from '../../src/resources/resource.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import type { VersionView } from '../../src/versions/api-versions.ts';

export { RESOURCES };

/** A resource only the tests know: no `name`, an object field, an enum without a default, event types 50..52. */
export const GADGETS = describeResource({
  plural: 'gadgets',
  singular: 'gadget',
  summary: 'Gadgets: a test resource, never shipped.',
  fields: {
    weightGrams: integerField({ min: 1, max: 100_000, example: 250 }),
    size: objectField({ members: { widthMm: integerField({ min: 1, max: 5_000, example: 40 }), label: textField({ min: 0, max: 20, example: 'small' }) } }),
    finish: choiceField({ name: 'GadgetFinish', values: { matte: 1, gloss: 2, brushed: 3 }, example: 2 }),
  },
  events: { created: 50, updated: 51, deleted: 52 },
  exampleId: 8,
});

/** The gadgets' table, as its migrations would make it on each engine. */
export const GADGETS_TABLE = {
  sqlite:
    'CREATE TABLE gadgets (id INTEGER PRIMARY KEY AUTOINCREMENT, weight_grams INTEGER NOT NULL, size_width_mm INTEGER NOT NULL, ' +
    'size_label TEXT NOT NULL, finish INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1) STRICT; ' +
    'CREATE INDEX gadgets_finish_id ON gadgets (finish, id)',
  postgres:
    'CREATE TABLE gadgets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, weight_grams integer NOT NULL, size_width_mm integer NOT NULL, ' +
    'size_label text NOT NULL, finish smallint NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, version integer NOT NULL DEFAULT 1); ' +
    'CREATE INDEX gadgets_finish_id ON gadgets (finish, id)',
} as const;

/** Makes the gadgets' table in a test database of either engine, as its migration would (the server then serves them). */
export async function makeGadgetsTable(database: { engine: 'sqlite' | 'postgres'; sql(statement: string): Promise<unknown> }): Promise<void> {
  for (const statement of GADGETS_TABLE[database.engine].split('; ')) await database.sql(statement);
}

/**
 * `resource` as API `version` shows it: its fields in that version (what its requests are validated by
 * and its document shows), so every helper below makes that version's bodies.
 */
export function inVersion(resource: Resource, version: VersionView): Resource {
  const fields = version.fieldsOf(resource);
  return { ...resource, fields, filters: resource.filters.filter((name) => Object.hasOwn(fields, name)) };
}

/** The service's resources and the throwaway one. */
export const ALL_RESOURCES: readonly Resource[] = [...RESOURCES, GADGETS];

// The n-th valid value of a scalar field: texts and integers differ from one n to the next.
function scalarValue(field: ScalarField<unknown>, n: number): unknown {
  if (field.choices !== undefined) return field.choices[n % field.choices.length];
  const schema = field.schema as { minimum?: number; maximum?: number; maxLength?: number; enum?: readonly unknown[] };
  // A text from a fixed list (a currency): one of its values.
  if (schema.enum !== undefined) return schema.enum[n % schema.enum.length];
  if (schema.minimum !== undefined && schema.maximum !== undefined) return schema.minimum + (n % (schema.maximum - schema.minimum + 1));
  return `${String(field.example)} ${n}`.slice(0, schema.maxLength ?? 200).trim();
}

function fieldValue(field: Field<unknown>, n: number): unknown {
  if (field.kind === 'scalar') return scalarValue(field, n);
  return Object.fromEntries(Object.entries(field.members).map(([member, memberField]) => [member, scalarValue(memberField, n)]));
}

/** A valid create body of `resource`, the n-th of a series: every field sent, values differing with n. */
export function validBody(resource: Resource, n = 0): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource.fields).map(([name, field]) => [name, fieldValue(field, n)]));
}

/** A valid merge patch of `resource` that changes every field from `validBody(resource, n)` (to the values of n + 1). */
export function changingPatch(resource: Resource, n = 0): Record<string, unknown> {
  return validBody(resource, n + 1);
}

/** The stored representation's members, in order: what a presenter must answer. */
export function representationMembers(resource: Resource): string[] {
  return ['id', ...Object.keys(resource.fields), 'createdAt', 'updatedAt'];
}

/** A field whose value a rule of the resource refuses, with the code: one per field, for the shared refusals. */
export function refusals(resource: Resource): { field: string; value: unknown; code: string; pointer: string }[] {
  return Object.entries(resource.fields).flatMap(([name, field]) =>
    field.refused.map((bad) => ({ field: name, value: bad.value, code: bad.code, pointer: bad.at === undefined ? `/${name}` : `/${name}/${bad.at}` })),
  );
}

/** The list filters a resource takes, each with one of its values: `status=2` for products. */
export function filtersOf(resource: Resource): ListFilter[] {
  return resource.filters.flatMap((field) => {
    const spec = resource.fields[field];
    const value = spec?.kind === 'scalar' ? spec.choices?.at(-1) : undefined;
    return value === undefined ? [] : [{ field, value }];
  });
}

/** The repository of `resource` among `repositories` (a storage's, or a transaction's). */
export function repository(repositories: { resources: ResourceRepositories }, resource: Resource): ResourceRepository<AnyStored> {
  return repositoryOf(repositories.resources, resource);
}
