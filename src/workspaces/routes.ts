import { Scope } from '../callers/scopes.ts';
import { createHandler } from '../http/create-handler.ts';
import { entityTag, refuseMalformedPreconditions } from '../http/conditional.ts';
import { deleteHandler, type ItemSpec, patchHandler, readHandler } from '../http/item-handlers.ts';
import { nextLink, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { WriteDeps } from '../http/write-input.ts';
import type { Workspace, WorkspacePatch } from './model.ts';
import { presentWorkspace } from './presenter.ts';
import type { WorkspaceUseCases } from './use-cases.ts';
import { validateNewWorkspace, validateWorkspacePatch } from './validate.ts';

const PATH = '/api/workspaces';
const ITEM: ItemSpec<Workspace> = { noun: 'workspace', present: presentWorkspace };

/** Registers the workspace endpoints: thin handlers from HTTP to use cases and back. */
export function addWorkspaceRoutes(router: Router<Handler>, workspaces: WorkspaceUseCases, writes: WriteDeps): void {
  router.add('GET', PATH, Scope.read, async (ctx) => {
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest('workspaces', ctx.query);
    const page = await workspaces.list(request);
    const link = nextLink(PATH, 'workspaces', request, page);
    return ok(page.items.map(presentWorkspace), link === undefined ? undefined : { link });
  });
  router.add('GET', `${PATH}/{id}`, Scope.read, readHandler(ITEM, workspaces.get));
  router.add(
    'POST',
    PATH,
    Scope.write,
    createHandler(writes, {
      validate: validateNewWorkspace,
      async execute(tx, input) {
        const workspace = await workspaces.create(tx, input);
        return created(`${PATH}/${workspace.id}`, presentWorkspace(workspace), entityTag(workspace.version));
      },
    }),
  );
  router.add('PATCH', `${PATH}/{id}`, Scope.write, patchHandler<Workspace, WorkspacePatch>(writes, { ...ITEM, validate: validateWorkspacePatch, change: workspaces.change, refusals: {} }));
  router.add('DELETE', `${PATH}/{id}`, Scope.write, deleteHandler(writes, { ...ITEM, remove: workspaces.remove }));
}
