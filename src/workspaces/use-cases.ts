import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import type { NewWorkspace, Workspace } from './model.ts';
import type { WorkspaceRepository } from './repository.ts';

/** The rules for workspaces, independent of HTTP. */
export interface WorkspaceUseCases {
  create(input: NewWorkspace): Workspace;
  get(id: number): Workspace | undefined;
  list(request: PageRequest): Page<Workspace>;
}

export function createWorkspaceUseCases(repository: WorkspaceRepository, now: () => Date = () => new Date()): WorkspaceUseCases {
  return {
    create: (input) => repository.insert({ name: input.name, createdAt: now().toISOString() }),
    get: (id) => repository.findById(id),
    list: (request) => pageOf(request, (limit) => repository.listBefore(request.beforeId, limit)),
  };
}
