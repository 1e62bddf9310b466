import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import type { Workspace } from './model.ts';
import type { WorkspaceRepository } from './repository.ts';

// Rows come back as arrays in column order, as for products (cheaper than keyed objects);
// the STRICT table guarantees each column's type.
type Row = readonly SQLOutputValue[];

function toWorkspace(row: Row): Workspace {
  return { id: row[0] as number, name: row[1] as string, createdAt: row[2] as string };
}

/** A WorkspaceRepository on node:sqlite; statements are prepared once. */
export function createSqliteWorkspaceRepository(db: DatabaseSync): WorkspaceRepository {
  const insert = db.prepare('INSERT INTO workspaces (name, created_at) VALUES (?, ?)');
  const byId = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id = ?');
  const page = db.prepare('SELECT id, name, created_at FROM workspaces WHERE id < ? ORDER BY id DESC LIMIT ?');
  byId.setReturnArrays(true);
  page.setReturnArrays(true);
  return {
    async insert(workspace) {
      const result = insert.run(workspace.name, workspace.createdAt);
      return { id: Number(result.lastInsertRowid), ...workspace };
    },
    async findById(id) {
      const row = byId.get(id) as Row | undefined;
      return row === undefined ? undefined : toWorkspace(row);
    },
    async listBefore(beforeId, limit) {
      const rows = page.all(beforeId ?? Number.MAX_SAFE_INTEGER, limit) as unknown as Row[];
      return rows.map(toWorkspace);
    },
  };
}
