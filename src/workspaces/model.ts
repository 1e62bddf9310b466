/** A stored workspace. `version` starts at 1 and grows with every change; the ETag is made from it. */
export interface Workspace {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** A validated create request. */
export interface NewWorkspace {
  name: string;
}

/** A validated merge patch: the fields to replace. */
export type WorkspacePatch = Partial<NewWorkspace>;
