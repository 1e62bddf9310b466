import type { Versioned } from '../shared/changes.ts';
import type { ResourceChange } from '../versions/model.ts';
import type { ResourceRepositories } from './repository.ts';
import type { ColumnType, Field, ScalarField } from './fields.ts';

/** A resource's fields, in the order of its representation (after `id`, before the times). */
export type FieldTable = Readonly<Record<string, Field<unknown>>>;

type ValueOf<F> = F extends Field<infer T> ? T : never;

/** The values of a table's fields, by name. */
export type Values<F extends FieldTable> = { -readonly [K in keyof F]: ValueOf<F[K]> };

/** A stored resource: its fields, its id, its times and its version (the ETag is made from it). */
export type Stored<F extends FieldTable = FieldTable> = Versioned & { createdAt: string } & Values<F>;

/** What a refused change answers: a stable code of its own, a status and a detail for people. */
export interface Refusal {
  readonly code: string;
  readonly status: number;
  readonly detail: string;
}

/** A business rule on the result of a change, which no validator can express because it depends on what is stored. */
export interface ChangeRule<S> {
  readonly refusal: Refusal;
  /** Said in the documentation of the patch. */
  readonly says: string;
  breaks(current: S, next: S): boolean;
}

/** The highest number an event type may have: its bit in a type mask stays below 2^53, exact in a JavaScript number. */
export const MAX_EVENT_TYPE = 52;

/**
 * A business rule that reads other resources (an order's customer must exist), run in the write's own
 * transaction on a create and on every change. A resource with checks creates in a transaction, not in
 * one statement: see docs/extending.md, A rule that needs another table.
 */
export interface Check<S> {
  readonly refusal: Refusal;
  /** Said in the documentation of the create and the patch. */
  readonly says: string;
  /** Whether `next` (the resource as it would be stored) breaks the rule; `tx` holds every resource's repository. */
  refuses(tx: { readonly resources: ResourceRepositories }, next: S): Promise<boolean>;
}

/** The stored numbers of a resource's event types (never reused, never changed: they are in every stored event). */
export interface EventNumbers {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
}

/** What a resource's folder writes: everything else about it is derived (docs/extending.md). */
export interface ResourceSpec<F extends FieldTable> {
  /** The plural, lower case: its path (`/api/orders`), its table, its tag. */
  readonly plural: string;
  /** The singular, lower case: its event types (`order.created`), its details ("No order has this id"). */
  readonly singular: string;
  /** One line for its tag in the OpenAPI document. */
  readonly summary: string;
  readonly fields: F;
  readonly events: EventNumbers;
  readonly rules?: readonly ChangeRule<Stored<F>>[];
  /** Rules that read other resources, checked on a create and on every change (in the write's transaction). */
  readonly checks?: readonly Check<Stored<F>>[];
  /** The id of its examples. */
  readonly exampleId: number;
  /** How its representation changed in the API versions after the first (docs/versions.md): the newest is what it is above. */
  readonly changes?: readonly ResourceChange[];
}

/** One column of a resource's table, and where its value is in the stored resource. */
export interface Column {
  readonly name: string;
  readonly type: ColumnType | 'id' | 'time' | 'version';
  /** The field it holds (`price`), and the member of an object field (`amount`). */
  readonly field: string;
  readonly member?: string;
}

/** A described resource: its spec, and what is derived from it once. */
export interface Resource<F extends FieldTable = FieldTable> extends ResourceSpec<F> {
  readonly path: string;
  /** Its schema's name: `Order`. */
  readonly title: string;
  /** Its table's columns in row order: `id`, the fields' columns, `created_at`, `updated_at`, `version`. */
  readonly columns: readonly Column[];
  readonly rules: readonly ChangeRule<Stored<F>>[];
  readonly checks: readonly Check<Stored<F>>[];
  /** The fields a list may be filtered by (integer enums), by name. */
  readonly filters: readonly string[];
}

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The columns `field`, named `name`, is kept in: one for a scalar, one per member of an object field. */
export function fieldColumns(name: string, field: Field<unknown>): Column[] {
  const scalarColumn = (scalarField: ScalarField<unknown>, fallback: string, member?: string): Column => ({
    name: scalarField.column ?? fallback,
    type: scalarField.type,
    field: name,
    ...(member === undefined ? {} : { member }),
  });
  if (field.kind === 'scalar') return [scalarColumn(field, snakeCase(name))];
  return Object.entries(field.members).map(([member, memberField]) => scalarColumn(memberField, `${snakeCase(name)}_${snakeCase(member)}`, member));
}

const LOWER = /^[a-z][a-z0-9_]*$/;

// `fields` with each scalar's column written on it (and each member's), so a version before that shows
// a field under another name (its change's `fieldsBefore`) still reads it from its column.
function withColumns<F extends FieldTable>(fields: F): F {
  const stamped: Record<string, Field<unknown>> = {};
  for (const [name, field] of Object.entries(fields)) {
    const columns = fieldColumns(name, field);
    if (field.kind === 'scalar') stamped[name] = { ...field, column: (columns[0] as Column).name };
    else {
      const members: Record<string, ScalarField<unknown>> = {};
      for (const column of columns) members[column.member ?? ''] = { ...(field.members[column.member ?? ''] as ScalarField<unknown>), column: column.name };
      stamped[name] = { ...field, members };
    }
  }
  return stamped as F;
}

/** Describes a resource: checks its spec and derives its path, title, columns and filters. */
export function describeResource<const F extends FieldTable>(spec: ResourceSpec<F>): Resource<F> {
  if (!LOWER.test(spec.plural) || !LOWER.test(spec.singular)) throw new Error(`a resource's names are lower case: ${spec.plural}, ${spec.singular}`);
  const columns: Column[] = [{ name: 'id', type: 'id', field: 'id' }];
  for (const [name, field] of Object.entries(spec.fields)) columns.push(...fieldColumns(name, field));
  columns.push({ name: 'created_at', type: 'time', field: 'createdAt' }, { name: 'updated_at', type: 'time', field: 'updatedAt' }, { name: 'version', type: 'version', field: 'version' });
  const names = columns.map((column) => column.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new Error(`${spec.plural}: the column ${twice} is named twice`);
  const numbers = Object.values(spec.events);
  if (new Set(numbers).size !== 3 || numbers.some((number) => !Number.isInteger(number) || number < 1 || number > MAX_EVENT_TYPE)) {
    throw new Error(`${spec.plural}: its three event types need three different numbers from 1 to ${MAX_EVENT_TYPE}`);
  }
  const filters = Object.entries(spec.fields).filter(([, field]) => field.kind === 'scalar' && field.choices !== undefined).map(([name]) => name);
  return {
    ...spec,
    fields: withColumns(spec.fields),
    path: `/api/${spec.plural}`,
    title: spec.singular.replace(/(^|_)([a-z])/g, (_, _underscore: string, letter: string) => letter.toUpperCase()),
    columns,
    rules: spec.rules ?? [],
    checks: spec.checks ?? [],
    filters,
  };
}
