import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Resource } from '../resources/resource.ts';

/** The three prepared statements that record a resource's events, each taking the resource's id. */
export interface EventRecorder {
  readonly created: StatementSync;
  readonly updated: StatementSync;
  readonly deleted: StatementSync;
}

// SQLite's own clock, in the text every time here has (RFC 3339 UTC, milliseconds).
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * Statements that copy a resource's row, as stored, into an event: `data` is the row as a JSON array
 * in the order of the resource's columns, built by SQLite, so recording allocates nothing in
 * JavaScript. They run in the savepoint of the write, so the change and its event commit together.
 * A created or updated event is as old as the row's updated_at; a deleted one is stamped now, and
 * must run before the DELETE.
 */
export function eventRecorder(db: DatabaseSync, resource: Resource): EventRecorder {
  const data = `json_array(${resource.columns.map((column) => column.name).join(', ')})`;
  const copy = (type: number, at: string): StatementSync =>
    db.prepare(`INSERT INTO events (type, created_at, data) SELECT ${type}, ${at}, ${data} FROM ${resource.plural} WHERE id = ?`);
  const { created, updated, deleted } = resource.events;
  return { created: copy(created, 'updated_at'), updated: copy(updated, 'updated_at'), deleted: copy(deleted, NOW) };
}
