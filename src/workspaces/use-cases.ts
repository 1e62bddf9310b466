import type { Repositories } from '../db/storage.ts';
import { applyPatch, type ChangeOutcome, type Precondition, removeVersioned, type RemoveOutcome } from '../shared/changes.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import type { NewWorkspace, Workspace, WorkspacePatch } from './model.ts';
import type { WorkspaceRepository } from './repository.ts';

/** The rules for workspaces, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface WorkspaceUseCases {
  create(tx: Repositories, input: NewWorkspace): Promise<Workspace>;
  get(id: number): Promise<Workspace | undefined>;
  list(request: PageRequest): Promise<Page<Workspace>>;
  change(tx: Repositories, id: number, patch: WorkspacePatch, precondition: Precondition): Promise<ChangeOutcome<Workspace>>;
  remove(tx: Repositories, id: number, precondition: Precondition): Promise<RemoveOutcome>;
}

/** `workspaces` serves reads outside transactions; `now` is the clock of createdAt and updatedAt. */
export function createWorkspaceUseCases(workspaces: WorkspaceRepository, now: () => Date = () => new Date()): WorkspaceUseCases {
  return {
    create(tx, input) {
      const at = now().toISOString();
      return tx.workspaces.insert({ name: input.name, createdAt: at, updatedAt: at });
    },
    get: (id) => workspaces.findById(id),
    list: (request) => pageOf(request, (limit) => workspaces.listBefore(request.beforeId, limit)),
    change: (tx, id, patch, precondition) => applyPatch<Workspace>(tx.workspaces, { id, patch, precondition, now: now() }),
    remove: (tx, id, precondition) => removeVersioned(tx.workspaces, id, precondition),
  };
}
