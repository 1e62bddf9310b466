import { type Member, objectLiteral } from './object-literal.ts';
import type { Column, FieldTable, Resource, Stored } from './resource.ts';

/** A stored resource as the generic machinery handles it: fields by name, nested for an object field. */
export type AnyStored = Stored<FieldTable>;

/** A resource as a list page holds it: a list carries no ETags, so it reads no version. */
export type Listed<S extends AnyStored = AnyStored> = Omit<S, 'version'> & { id: number };

/** The columns a page of the list reads: every column but `version`. */
export function listedColumns(resource: Resource): readonly Column[] {
  return resource.columns.filter((column) => column.type !== 'version');
}

/** The value a column holds, read from a stored (or new) resource. */
export function columnValue(column: Column, resource: Readonly<Record<string, unknown>>): unknown {
  const value = resource[column.field];
  return column.member === undefined ? value : (value as Readonly<Record<string, unknown>> | undefined)?.[column.member];
}

/**
 * Turns rows in `columns` order into stored resources (rows come back as arrays, about twice as cheap
 * as objects keyed by column name; this is the one place that reads them). PostgreSQL's bigint id may
 * come as text.
 */
export function rowReader<S extends AnyStored>(columns: readonly Column[]): (row: readonly unknown[]) => S {
  const shape = new Map<string, Member>();
  columns.forEach((column, index) => {
    const read = { path: [index], asNumber: column.type === 'id' };
    if (column.member === undefined) shape.set(column.field, read);
    else {
      const object = (shape.get(column.field) as Map<string, Member> | undefined) ?? new Map<string, Member>();
      shape.set(column.field, object.set(column.member, read));
    }
  });
  // An object literal per row (src/resources/object-literal.ts): a list page reads fifty.
  return objectLiteral<readonly unknown[], S>(shape);
}
