import type { DatabaseSync } from 'node:sqlite';
import type { Resource } from '../resources/resource.ts';
import { WebhookFanOut } from './webhook-fan-out.ts';

/** Records a resource's events: each takes the resource's id, and writes its event with its deliveries. */
export interface EventRecorder {
  created(id: number | bigint): void;
  updated(id: number | bigint): void;
  deleted(id: number | bigint): void;
}

// SQLite's own clock, in the text every time here has (RFC 3339 UTC, milliseconds).
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/**
 * Statements that copy a resource's row, as stored, into an event: `data` is the row as a JSON array
 * in the order of the resource's columns, built by SQLite, so recording allocates nothing in
 * JavaScript. Each event then gets its webhook deliveries (`deliveries`: the connection's, given by its
 * storage). They run in
 * the savepoint of the write, so the change, its event and its deliveries commit together. A created
 * or updated event is as old as the row's updated_at; a deleted one is stamped now, and must be
 * recorded before the DELETE.
 */
export function eventRecorder(db: DatabaseSync, resource: Resource, deliveries = new WebhookFanOut(db)): EventRecorder {
  const data = `json_array(${resource.columns.map((column) => column.name).join(', ')})`;
  const copy = (type: number, at: string): ((id: number | bigint) => void) => {
    const insert = db.prepare(`INSERT INTO events (type, created_at, data) SELECT ${type}, ${at}, ${data} FROM ${resource.plural} WHERE id = ?`);
    return (id) => {
      const recorded = insert.run(id);
      if (recorded.changes > 0) deliveries.fanOut(recorded.lastInsertRowid);
    };
  };
  const { created, updated, deleted } = resource.events;
  return { created: copy(created, 'updated_at'), updated: copy(updated, 'updated_at'), deleted: copy(deleted, NOW) };
}
