import type { Column, Resource } from '../resources/resource.ts';
import { isoText } from './sql.ts';

/** A column as a select list reads it: times formatted by the server into the text SQLite stores (see isoText). */
export function selected(column: Column, table = ''): string {
  const name = `${table}${column.name}`;
  return column.type === 'time' ? isoText(name) : name;
}

/** The SQL type of a column's values, as parameters are cast (an unnest of arrays). */
export function sqlTypeOf(column: Column): string {
  if (column.type === 'time') return 'timestamptz';
  if (column.type === 'id') return 'bigint';
  return column.type;
}

/**
 * The tail of one statement that records the event of a write: `WITH p AS (<the write> RETURNING
 * <columns>)` followed by this inserts the event from the row the write returned, so the change and
 * its event are one statement (one round trip in autocommit) and one transaction. `data` is the row as
 * a JSON array in the order of the resource's columns, times as the text SQLite stores.
 * `at` is the event's time: a column of p, or now() for a delete.
 */
export function insertEventFrom(resource: Resource, type: number, at: string): string {
  const values = resource.columns.map((column) => selected(column, 'p.')).join(', ');
  return `INSERT INTO events (type, created_at, data) SELECT ${type}, ${at}, json_build_array(${values})::text FROM p`;
}
