import type { SqlRunner } from './client.ts';
import { asNumber, isoText } from './sql.ts';
import type { Workspace } from '../workspaces/model.ts';
import type { WorkspaceRepository } from '../workspaces/repository.ts';
import { WORKSPACE_COLUMNS, workspaceFromRow } from '../workspaces/rows.ts';
import { EventType } from '../events/model.ts';
import { insertEventFrom } from './event-sql.ts';

// The times are formatted by the server into the text SQLite stores (see isoText).
const COLUMNS = WORKSPACE_COLUMNS.map((column) => (column.endsWith('_at') ? isoText(column) : column)).join(', ');
const RETURNED = `RETURNING ${WORKSPACE_COLUMNS.join(', ')})`;

// Each write is one statement that also records its event (src/postgres/event-sql.ts).
const INSERT =
  `WITH p AS (INSERT INTO workspaces (name, created_at, updated_at) VALUES ($1, $2, $3) ${RETURNED}, ` +
  `e AS (${insertEventFrom(EventType.workspaceCreated, 'p.updated_at', WORKSPACE_COLUMNS)}) SELECT id FROM p`;
const UPDATE =
  `WITH p AS (UPDATE workspaces SET name = $1, updated_at = $2, version = $3 WHERE id = $4 ${RETURNED} ` +
  insertEventFrom(EventType.workspaceUpdated, 'p.updated_at', WORKSPACE_COLUMNS);
const DELETE = `WITH p AS (DELETE FROM workspaces WHERE id = $1 ${RETURNED} ${insertEventFrom(EventType.workspaceDeleted, 'now()', WORKSPACE_COLUMNS)}`;

/** A WorkspaceRepository on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresWorkspaceRepository(db: SqlRunner): WorkspaceRepository {
  const one = async (sql: string, id: number): Promise<Workspace | undefined> => {
    const [row] = await db.rows(sql, [id]);
    return row === undefined ? undefined : workspaceFromRow(row);
  };
  return {
    async insert(workspace) {
      const [row] = await db.rows(INSERT, [workspace.name, workspace.createdAt, workspace.updatedAt]);
      return { id: asNumber(row?.[0]), ...workspace, version: 1 };
    },
    findById: (id) => one(`SELECT ${COLUMNS} FROM workspaces WHERE id = $1`, id),
    // The row lock holds until the transaction ends (see the product repository).
    findForUpdate: (id) => one(`SELECT ${COLUMNS} FROM workspaces WHERE id = $1 FOR UPDATE`, id),
    async update(workspace) {
      await db.run(UPDATE, [
        workspace.name, workspace.updatedAt, workspace.version, workspace.id,
      ]);
    },
    async remove(id) {
      // One event per deleted row: the count of events inserted is the count of rows deleted.
      return (await db.run(DELETE, [id])) > 0;
    },
    async listBefore(beforeId, limit) {
      const rows = await db.rows(`SELECT ${COLUMNS} FROM workspaces WHERE id < $1 ORDER BY id DESC LIMIT $2`, [beforeId ?? Number.MAX_SAFE_INTEGER, limit]);
      return rows.map(workspaceFromRow);
    },
  };
}
