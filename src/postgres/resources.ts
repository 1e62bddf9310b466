import type { SqlRunner } from './client.ts';
import type { ListFilter, ResourceRepository } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import { type AnyStored, columnValue, listedColumns, rowReader } from '../resources/rows.ts';
import { insertEventFrom, selected } from './resource-sql.ts';
import { asNumber } from './sql.ts';

/** The statements of a resource's repository, made once from its description. */
function statementsOf(resource: Resource) {
  const table = resource.plural;
  const written = resource.columns.filter((column) => column.type !== 'id' && column.type !== 'version');
  const changed = written.filter((column) => column.name !== 'created_at');
  const returned = `RETURNING ${resource.columns.map((column) => column.name).join(', ')})`;
  const params = (count: number, from = 1): string => Array.from({ length: count }, (_, i) => `$${i + from}`).join(', ');
  const { created, updated, deleted } = resource.events;
  const setters = changed.map((column, i) => `${column.name} = $${i + 1}`).join(', ');
  return {
    written,
    changed,
    // Each write is one statement that also records its event.
    insert: `WITH p AS (INSERT INTO ${table} (${written.map((c) => c.name).join(', ')}) VALUES (${params(written.length)}) ${returned}, ` +
      `e AS (${insertEventFrom(resource, created, 'p.updated_at')}) SELECT id FROM p`,
    update: `WITH p AS (UPDATE ${table} SET ${setters}, version = $${changed.length + 1} WHERE id = $${changed.length + 2} ${returned} ` +
      insertEventFrom(resource, updated, 'p.updated_at'),
    remove: `WITH p AS (DELETE FROM ${table} WHERE id = $1 ${returned} ${insertEventFrom(resource, deleted, 'now()')}`,
    byId: `SELECT ${resource.columns.map((column) => selected(column)).join(', ')} FROM ${table} WHERE id = $1`,
    page: (filters: readonly ListFilter[]): string => {
      const where = filters.map((filter, i) => `${resource.columns.find((c) => c.field === filter.field)?.name ?? filter.field} = $${i + 1} AND `).join('');
      const listed = listedColumns(resource).map((column) => selected(column)).join(', ');
      return `SELECT ${listed} FROM ${table} WHERE ${where}id < $${filters.length + 1} ORDER BY id DESC LIMIT $${filters.length + 2}`;
    },
  };
}

/** What a resource's repositories share: its statements and row readers, made once per resource. */
function partsOf(resource: Resource) {
  return { sql: statementsOf(resource), fromRow: rowReader<AnyStored>(resource.columns), listedFromRow: rowReader<AnyStored>(listedColumns(resource)) };
}

// A repository is made per write (on its transaction or its single statement's runner): what it
// runs is made once per resource, not per request (it was 50 µs a create).
const made = new WeakMap<Resource, ReturnType<typeof partsOf>>();

/** A ResourceRepository of `resource` on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresResourceRepository(db: SqlRunner, resource: Resource): ResourceRepository {
  let parts = made.get(resource);
  if (parts === undefined) made.set(resource, (parts = partsOf(resource)));
  const { sql, fromRow, listedFromRow } = parts;
  const one = async (statement: string, id: number): Promise<AnyStored | undefined> => {
    const [row] = await db.rows(statement, [id]);
    return row === undefined ? undefined : fromRow(row);
  };
  return {
    async insert(stored) {
      const [row] = await db.rows(sql.insert, sql.written.map((column) => columnValue(column, stored)));
      return { ...stored, id: asNumber(row?.[0]), version: 1 } as AnyStored;
    },
    findById: (id) => one(sql.byId, id),
    // The row lock holds until the transaction ends: a concurrent change of this resource waits, then
    // reads what this one committed, so an If-Match check and its write are one step.
    findForUpdate: (id) => one(`${sql.byId} FOR UPDATE`, id),
    async update(stored) {
      await db.run(sql.update, [...sql.changed.map((column) => columnValue(column, stored)), stored.version, stored.id]);
    },
    // One event per deleted row: the count of events inserted is the count of rows deleted.
    remove: async (id) => (await db.run(sql.remove, [id])) > 0,
    async listBefore(beforeId, limit, filters) {
      const rows = await db.rows(sql.page(filters), [...filters.map((filter) => filter.value), beforeId ?? Number.MAX_SAFE_INTEGER, limit]);
      return rows.map(listedFromRow);
    },
  };
}
