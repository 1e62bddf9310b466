import type { DatabaseSync } from 'node:sqlite';
import type { Workspace } from './model.ts';

/** Storage of workspaces; the only code that knows their SQL. */
export interface WorkspaceRepository {
  insert(workspace: Omit<Workspace, 'id'>): Workspace;
  findById(id: number): Workspace | undefined;
  /** Up to `limit` workspaces with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Workspace[];
}

function toWorkspace(row: Record<string, unknown>): Workspace {
  return { id: Number(row['id']), name: String(row['name']), createdAt: String(row['created_at']) };
}

/** A WorkspaceRepository on node:sqlite; statements are prepared once. */
export function createWorkspaceRepository(db: DatabaseSync): WorkspaceRepository {
  const insert = db.prepare('INSERT INTO workspaces (name, created_at) VALUES (?, ?)');
  const byId = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id = ?');
  const page = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id < ? ORDER BY id DESC LIMIT ?');
  return {
    insert(workspace) {
      const result = insert.run(workspace.name, workspace.createdAt);
      return { id: Number(result.lastInsertRowid), ...workspace };
    },
    findById(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toWorkspace(row);
    },
    listBefore(beforeId, limit) {
      return page.all(beforeId ?? Number.MAX_SAFE_INTEGER, limit).map(toWorkspace);
    },
  };
}
