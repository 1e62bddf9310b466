/** A stored workspace. */
export interface Workspace {
  id: number;
  name: string;
  createdAt: string;
}

/** A validated create request. */
export interface NewWorkspace {
  name: string;
}
