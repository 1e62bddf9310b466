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
  const plan = columns.map((column) => ({ field: column.field, member: column.member, isId: column.type === 'id' }));
  return (row) => {
    const stored: Record<string, unknown> = {};
    // A plain loop: a list page reads every column of fifty rows.
    for (let index = 0; index < plan.length; index++) {
      const { field, member, isId } = plan[index] as (typeof plan)[number];
      const value = isId ? Number(row[index]) : row[index];
      if (member === undefined) stored[field] = value;
      else ((stored[field] ??= {}) as Record<string, unknown>)[member] = value;
    }
    return stored as S;
  };
}
