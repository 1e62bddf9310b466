import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import type { Workspace } from '../workspaces/model.ts';
import type { WorkspaceRepository } from '../workspaces/repository.ts';
import { WORKSPACE_COLUMNS, workspaceFromRow } from '../workspaces/rows.ts';
import { EventType } from '../events/model.ts';
import { eventRecorder } from './event-recorder.ts';

const COLUMNS = WORKSPACE_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

/** A WorkspaceRepository on node:sqlite; statements are prepared once. */
export function createSqliteWorkspaceRepository(db: DatabaseSync): WorkspaceRepository {
  const insert = db.prepare('INSERT INTO workspaces (name, created_at, updated_at) VALUES (?, ?, ?)');
  const update = db.prepare('UPDATE workspaces SET name = ?, updated_at = ?, version = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM workspaces WHERE id = ?');
  const byId = db.prepare(`SELECT ${COLUMNS} FROM workspaces WHERE id = ?`);
  const page = db.prepare(`SELECT ${COLUMNS} FROM workspaces WHERE id < ? ORDER BY id DESC LIMIT ?`);
  byId.setReturnArrays(true);
  page.setReturnArrays(true);
  // Each write records its event in the same savepoint, from the row as stored (docs/events.md).
  const record = eventRecorder(db, 'workspaces', WORKSPACE_COLUMNS, [EventType.workspaceCreated, EventType.workspaceUpdated, EventType.workspaceDeleted]);
  const findById = async (id: number): Promise<Workspace | undefined> => {
    const row = byId.get(id) as Row | undefined;
    return row === undefined ? undefined : workspaceFromRow(row);
  };
  return {
    async insert(workspace) {
      const result = insert.run(workspace.name, workspace.createdAt, workspace.updatedAt);
      record.created.run(result.lastInsertRowid);
      return { id: Number(result.lastInsertRowid), ...workspace, version: 1 };
    },
    findById,
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    findForUpdate: findById,
    async update(workspace) {
      if (update.run(workspace.name, workspace.updatedAt, workspace.version, workspace.id).changes > 0) record.updated.run(workspace.id);
    },
    async remove(id) {
      // The event is taken from the row before it goes; no row, no event.
      record.deleted.run(id);
      return remove.run(id).changes > 0;
    },
    async listBefore(beforeId, limit) {
      const rows = page.all(beforeId ?? Number.MAX_SAFE_INTEGER, limit) as unknown as Row[];
      return rows.map(workspaceFromRow);
    },
  };
}
