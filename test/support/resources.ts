// Every resource the shared tests run over: the service's own (src/registry.ts), and a throwaway one
// this file describes, whose fields have no `name`, whose event types are its own, and which no
// migration of the service knows: a test makes its table itself (GADGETS_TABLE). What a test needs of
// a resource it derives from the description, so a resource added later is covered without being named.
import { RESOURCES, VERSIONS } from '../../src/registry.ts';
import { buildVersions, type VersionView } from '../../src/versions/api-versions.ts';
import type { Field, ScalarField } from '../../src/resources/fields.ts';
import { choiceField, integerField, objectField, textField } from '../../src/resources/fields.ts';
import { type ListFilter, repositoryOf, type ResourceRepositories, type ResourceRepository } from '../../src/resources/repository.ts';
import { describeResource, type FieldTable, type Resource } from '../../src/resources/resource.ts';
import type { AnyStored } from '../../src/resources/rows.ts';

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

/** The service's resources and the throwaway one. */
export const ALL_RESOURCES: readonly Resource[] = [...RESOURCES, GADGETS];

// The versions of the service, for every resource the tests know (no sunsets).
const VIEWS = buildVersions(VERSIONS, ALL_RESOURCES, { at: new Map(), announcedAt: 0 });
/**
 * The version a request without Api-Version gets (SVC_API_VERSION's default, the first): what the
 * shared HTTP tests send and read unless they name another. Storage and use cases work in the newest.
 */
export const DEFAULT_VERSION: VersionView = VIEWS.all[0] as VersionView;
export const NEWEST_VERSION: VersionView = VIEWS.newest;
/** Every version, oldest first. */
export const ALL_VERSIONS: readonly VersionView[] = VIEWS.all;

/** `resource`'s fields in `version` (the default version unless named). */
export function fieldsIn(resource: Resource, version: VersionView = DEFAULT_VERSION): FieldTable {
  return version.fieldsOf(resource);
}

/** A body of the default version (or `version`) as the newest takes it: a representation or a create, upgraded (an old product gets EUR). */
export function toNewest(resource: Resource, body: Readonly<Record<string, unknown>>, version: VersionView = DEFAULT_VERSION): Record<string, unknown> {
  return { ...version.upgrade(resource.plural, body, { mode: 'create', settings: { defaultCurrency: 'EUR' } }) };
}

// The n-th valid value of a scalar field: texts and integers differ from one n to the next.
function scalarValue(field: ScalarField<unknown>, n: number): unknown {
  if (field.choices !== undefined) return field.choices[n % field.choices.length];
  const schema = field.schema as { minimum?: number; maximum?: number; maxLength?: number; enum?: readonly string[] };
  if (schema.enum !== undefined) return schema.enum[n % schema.enum.length];
  if (schema.minimum !== undefined && schema.maximum !== undefined) return schema.minimum + (n % (schema.maximum - schema.minimum + 1));
  return `${String(field.example)} ${n}`.slice(0, schema.maxLength ?? 200).trim();
}

function fieldValue(field: Field<unknown>, n: number): unknown {
  if (field.kind === 'scalar') return scalarValue(field, n);
  return Object.fromEntries(Object.entries(field.members).map(([member, memberField]) => [member, scalarValue(memberField, n)]));
}

/**
 * A valid create body of `resource` in the default version (or `version`; the newest for storage), the
 * n-th of a series: every field sent, values differing with n.
 */
export function validBody(resource: Resource, n = 0, version: VersionView = DEFAULT_VERSION): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fieldsIn(resource, version)).map(([name, field]) => [name, fieldValue(field, n)]));
}

/** A valid merge patch of `resource` that changes every field from `validBody(resource, n)` (to the values of n + 1). */
export function changingPatch(resource: Resource, n = 0, version: VersionView = DEFAULT_VERSION): Record<string, unknown> {
  return validBody(resource, n + 1, version);
}

/** The representation's members in the default version (or `version`), in order: what a presenter must answer. */
export function representationMembers(resource: Resource, version: VersionView = DEFAULT_VERSION): string[] {
  return ['id', ...Object.keys(fieldsIn(resource, version)), 'createdAt', 'updatedAt'];
}

/** A field whose value a rule of the resource refuses, with the code: one per field, for the shared refusals (in the default version, or `version`). */
export function refusals(resource: Resource, version: VersionView = DEFAULT_VERSION): { field: string; value: unknown; code: string; pointer: string }[] {
  return Object.entries(fieldsIn(resource, version)).flatMap(([name, field]) =>
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
