import { createHandler, type WriteDeps } from '../http/create-handler.ts';
import { HttpError } from '../http/errors.ts';
import { nextLink, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok, parseId } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { presentWorkspace } from './presenter.ts';
import type { WorkspaceUseCases } from './use-cases.ts';
import { validateNewWorkspace } from './validate.ts';

const PATH = '/api/workspaces';

/** Registers the workspace endpoints: thin handlers from HTTP to use cases and back. */
export function addWorkspaceRoutes(router: Router<Handler>, workspaces: WorkspaceUseCases, writes: WriteDeps): void {
  router.add('GET', PATH, async (ctx) => {
    const request = parsePageRequest('workspaces', ctx.query);
    const page = await workspaces.list(request);
    const link = nextLink(PATH, 'workspaces', request, page);
    return ok(page.items.map(presentWorkspace), link === undefined ? undefined : { link });
  });
  router.add('GET', `${PATH}/{id}`, async (ctx) => {
    const id = parseId(ctx.params['id']);
    const workspace = id === null ? undefined : await workspaces.get(id);
    if (workspace === undefined) throw new HttpError('not_found', { detail: 'No workspace has this id.' });
    return ok(presentWorkspace(workspace));
  });
  router.add(
    'POST',
    PATH,
    createHandler(writes, {
      validate: validateNewWorkspace,
      async execute(tx, input) {
        const workspace = await workspaces.create(tx, input);
        return created(`${PATH}/${workspace.id}`, presentWorkspace(workspace));
      },
    }),
  );
}
