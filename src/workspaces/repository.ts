import type { Workspace } from './model.ts';

/** Storage of workspaces; each engine implements it in its own file, the only code that knows their SQL. */
export interface WorkspaceRepository {
  /** Stores a new workspace at version 1; the database assigns an id never used before. */
  insert(workspace: Omit<Workspace, 'id' | 'version'>): Promise<Workspace>;
  findById(id: number): Promise<Workspace | undefined>;
  /** In a write transaction: reads the workspace and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: number): Promise<Workspace | undefined>;
  /** Stores every field of `workspace` (found by its id), updatedAt and version included. */
  update(workspace: Workspace): Promise<void>;
  /** Deletes the workspace; resolves to whether it existed. */
  remove(id: number): Promise<boolean>;
  /** Up to `limit` workspaces with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Promise<Workspace[]>;
}
