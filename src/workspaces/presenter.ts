import type { Workspace } from './model.ts';

/** The Workspace representation of docs/api.md: exactly these members, in this order. */
export function presentWorkspace(workspace: Workspace): object {
  return { id: workspace.id, name: workspace.name, createdAt: workspace.createdAt, updatedAt: workspace.updatedAt };
}
