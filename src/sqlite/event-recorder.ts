import type { DatabaseSync } from 'node:sqlite';
import type { Resource } from '../resources/resource.ts';
import { webhookFanOut } from './webhook-fan-out.ts';

/** Records one of a resource's events, with its webhook deliveries, taking the resource's id. */
export type RecordEvent = (id: number | bigint) => void;

/** The three recorders of a resource's events. */
export interface EventRecorder {
  readonly created: RecordEvent;
  readonly updated: RecordEvent;
  readonly deleted: RecordEvent;
}

// SQLite's own clock, in the text every time here has (RFC 3339 UTC, milliseconds).
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * Statements that copy a resource's row, as stored, into an event: `data` is the row as a JSON array
 * in the order of the resource's columns, built by SQLite, so recording allocates nothing in
 * JavaScript. Each event's webhook deliveries follow it (src/sqlite/webhook-fan-out.ts). They run in
 * the savepoint of the write, so the change, its event and its deliveries commit together. A created
 * or updated event is as old as the row's updated_at; a deleted one is stamped now, and must run
 * before the DELETE.
 */
export function eventRecorder(db: DatabaseSync, resource: Resource): EventRecorder {
  const data = `json_array(${resource.columns.map((column) => column.name).join(', ')})`;
  const fanOut = webhookFanOut(db);
  const copy = (type: number, at: string): RecordEvent => {
    const insert = db.prepare(`INSERT INTO events (type, created_at, data) SELECT ${type}, ${at}, ${data} FROM ${resource.plural} WHERE id = ?`);
    return (id) => {
      const result = insert.run(id);
      if (result.changes > 0) fanOut(result.lastInsertRowid);
    };
  };
  const { created, updated, deleted } = resource.events;
  return { created: copy(created, 'updated_at'), updated: copy(updated, 'updated_at'), deleted: copy(deleted, NOW) };
}
