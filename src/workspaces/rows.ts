import type { Workspace } from './model.ts';

/** The columns both engines' repositories select, in this order (rows come back as arrays). */
export const WORKSPACE_COLUMNS = ['id', 'name', 'created_at', 'updated_at', 'version'] as const;

/** A workspace from a row in WORKSPACE_COLUMNS order; PostgreSQL's bigint id may come as text. */
export function workspaceFromRow(row: readonly unknown[]): Workspace {
  return { id: Number(row[0]), name: row[1] as string, createdAt: row[2] as string, updatedAt: row[3] as string, version: row[4] as number };
}
