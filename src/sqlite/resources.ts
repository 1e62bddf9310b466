import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';
import type { ListFilter, NewRow, ResourceRepository } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import { type AnyStored, columnValue, listedColumns, rowReader } from '../resources/rows.ts';
import { eventRecorder } from './event-recorder.ts';
import { WebhookFanOut } from './webhook-fan-out.ts';
import { BOUND_LIMIT } from './limit.ts';

type Row = readonly SQLOutputValue[];

/**
 * The ResourceRepository of `resource` on node:sqlite, its SQL made from the description; statements
 * are prepared once (a filtered page, once per filter used). Every write records its event in the
 * same savepoint, from the row as stored (docs/events.md).
 */
export function createSqliteResourceRepository(db: DatabaseSync, resource: Resource, deliveries = new WebhookFanOut(db)): ResourceRepository {
  const table = resource.plural;
  const all = resource.columns;
  const written = all.filter((column) => column.type !== 'id' && column.type !== 'version');
  const changed = written.filter((column) => column.name !== 'created_at');
  const listed = listedColumns(resource);
  const LISTED = listed.map((column) => column.name).join(', ');
  const insert = db.prepare(`INSERT INTO ${table} (${written.map((c) => c.name).join(', ')}) VALUES (${written.map(() => '?').join(', ')})`);
  const update = db.prepare(`UPDATE ${table} SET ${changed.map((c) => `${c.name} = ?`).join(', ')}, version = ? WHERE id = ?`);
  const remove = db.prepare(`DELETE FROM ${table} WHERE id = ?`);
  const byId = db.prepare(`SELECT ${all.map((c) => c.name).join(', ')} FROM ${table} WHERE id = ?`);
  // The first page (no cursor, no filter), the one asked most: no bound to bind or compare on each row.
  const firstPage = db.prepare(`SELECT ${LISTED} FROM ${table} ORDER BY id DESC ${BOUND_LIMIT}`);
  const filtered = new Map<string, StatementSync>();
  const pageWith = (filters: readonly ListFilter[]): StatementSync => {
    const key = filters.map((filter) => filter.field).join(',');
    let statement = filtered.get(key);
    if (statement === undefined) {
      const where = filters.map((filter) => `${all.find((c) => c.field === filter.field)?.name ?? filter.field} = ? AND `).join('');
      statement = db.prepare(`SELECT ${LISTED} FROM ${table} WHERE ${where}id < ? ORDER BY id DESC ${BOUND_LIMIT}`);
      statement.setReturnArrays(true);
      filtered.set(key, statement);
    }
    return statement;
  };
  for (const read of [byId, firstPage]) read.setReturnArrays(true);
  const record = eventRecorder(db, resource, deliveries);
  const fromRow = rowReader<AnyStored>(all);
  const listedFromRow = rowReader<AnyStored>(listed);
  const values = (columns: typeof written, from: NewRow): SQLInputValue[] => columns.map((column) => columnValue(column, from) as SQLInputValue);
  const findById = async (id: number): Promise<AnyStored | undefined> => {
    const row = byId.get(id) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  };
  return {
    async insert(resource) {
      const result = insert.run(...values(written, resource));
      record.created(result.lastInsertRowid);
      return { ...resource, id: Number(result.lastInsertRowid), version: 1 } as AnyStored;
    },
    findById,
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    findForUpdate: findById,
    async update(resource) {
      if (update.run(...values(changed, resource), resource.version, resource.id).changes > 0) record.updated(resource.id);
    },
    async remove(id) {
      // The event is taken from the row before it goes; no row, no event.
      record.deleted(id);
      return remove.run(id).changes > 0;
    },
    // No await in a read: the page comes back at once (its busy handling is src/sqlite/busy.ts's).
    listBefore(beforeId, limit, filters) {
      const rows = (filters.length === 0 && beforeId === null
        ? firstPage.all(limit)
        : pageWith(filters).all(...filters.map((filter) => filter.value), beforeId ?? Number.MAX_SAFE_INTEGER, limit)) as unknown as Row[];
      return rows.map(listedFromRow);
    },
  };
}
