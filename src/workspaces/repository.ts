import type { Workspace } from './model.ts';

/** Storage of workspaces; each engine implements it in its own file, the only code that knows their SQL. */
export interface WorkspaceRepository {
  insert(workspace: Omit<Workspace, 'id'>): Promise<Workspace>;
  findById(id: number): Promise<Workspace | undefined>;
  /** Up to `limit` workspaces with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Promise<Workspace[]>;
}
