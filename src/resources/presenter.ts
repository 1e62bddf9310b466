import type { VersionView } from '../versions/api-versions.ts';
import { type FieldTable, fieldColumns, type Resource } from './resource.ts';
import { type Member, objectLiteral, type Read, type Shape } from './object-literal.ts';
import type { Listed } from './rows.ts';

/** A representation: exactly its members, in order; no row reaches the wire as it is. */
export type Presenter = (stored: Listed) => Record<string, unknown>;

/**
 * The members of `fields` (the resource's fields in some version), each read from the newest stored
 * resource through the column it is kept in: a field a version shows under another name or shape
 * (`priceInCents`, kept in `price_in_cents`, the newest `price.amount`) reads that column's value.
 */
function shapeOf(resource: Resource, fields: FieldTable): Shape {
  const newest = new Map(resource.columns.map((column) => [column.name, column]));
  const readOf = (name: string, columnName: string): Read => {
    const column = newest.get(columnName);
    if (column === undefined) throw new Error(`${resource.plural}: ${name} is kept in ${columnName}, no column of the newest: its version's change needs a downgrade`);
    return { path: column.member === undefined ? [column.field] : [column.field, column.member] };
  };
  const shape = new Map<string, Member>([['id', { path: ['id'] }]]);
  for (const [name, field] of Object.entries(fields)) {
    const columns = fieldColumns(name, field);
    if (field.kind === 'scalar') shape.set(name, readOf(name, (columns[0] as (typeof columns)[0]).name));
    else shape.set(name, new Map(columns.map((column) => [column.member ?? '', readOf(column.member ?? '', column.name)])));
  }
  return shape.set('createdAt', { path: ['createdAt'] }).set('updatedAt', { path: ['updatedAt'] });
}

/**
 * The presenter that shows `fields` (the newest unless given): `id`, each field in its order,
 * `createdAt`, `updatedAt`, as one object literal (src/resources/object-literal.ts).
 */
export function presenterOf(resource: Resource, fields: FieldTable = resource.fields): Presenter {
  return objectLiteral<Listed, Record<string, unknown>>(shapeOf(resource, fields));
}

/**
 * `resource`'s presenter in each API version, made once per version: its fields in that version
 * (docs/versions.md), or, where a later change reshapes it by hand, the newest carried down the chain.
 */
export function presenterIn(resource: Resource): (version: VersionView) => Presenter {
  const newest = presenterOf(resource);
  const made = new Map<VersionView, Presenter>();
  return (version) => {
    let presenter = made.get(version);
    if (presenter === undefined) {
      presenter = version.reshapes(resource.plural)
        ? (stored) => version.downgrade(resource.plural, newest(stored)) as Record<string, unknown>
        : presenterOf(resource, version.fieldsOf(resource));
      made.set(version, presenter);
    }
    return presenter;
  };
}
