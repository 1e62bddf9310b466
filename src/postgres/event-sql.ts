import type { EventType } from '../events/model.ts';
import { isoText } from './sql.ts';

/**
 * The tail of one statement that records the event of a write: `WITH p AS (<the write> RETURNING
 * <columns>)` followed by this inserts the event from the row the write returned, so the change and
 * its event are one statement (one round trip in autocommit) and one transaction. `data` is the row as
 * a JSON array in `columns` order (its rows.ts order), times as the text SQLite stores.
 * `at` is the event's time: a column of p, or now() for a delete.
 */
export function insertEventFrom(type: EventType, at: string, columns: readonly string[]): string {
  const values = columns.map((column) => (column.endsWith('_at') ? isoText(`p.${column}`) : `p.${column}`)).join(', ');
  return `INSERT INTO events (type, created_at, data) SELECT ${type}, ${at}, json_build_array(${values})::text FROM p`;
}
