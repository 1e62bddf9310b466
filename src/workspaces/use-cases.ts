import type { Repositories } from '../db/storage.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import type { NewWorkspace, Workspace } from './model.ts';
import type { WorkspaceRepository } from './repository.ts';

/** The rules for workspaces, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface WorkspaceUseCases {
  create(tx: Repositories, input: NewWorkspace): Promise<Workspace>;
  get(id: number): Promise<Workspace | undefined>;
  list(request: PageRequest): Promise<Page<Workspace>>;
}

/** `workspaces` serves reads outside transactions; `now` is the clock of createdAt. */
export function createWorkspaceUseCases(workspaces: WorkspaceRepository, now: () => Date = () => new Date()): WorkspaceUseCases {
  return {
    create: (tx, input) => tx.workspaces.insert({ name: input.name, createdAt: now().toISOString() }),
    get: (id) => workspaces.findById(id),
    list: (request) => pageOf(request, (limit) => workspaces.listBefore(request.beforeId, limit)),
  };
}
