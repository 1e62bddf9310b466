import { Scope } from '../callers/scopes.ts';
import { createHandler } from '../http/create-handler.ts';
import { entityTag, refuseMalformedPreconditions } from '../http/conditional.ts';
import { deleteHandler, type ItemSpec, patchHandler, readHandler } from '../http/item-handlers.ts';
import { nextLink, parseEnumFilter, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok, type Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { WriteDeps } from '../http/write-input.ts';
import type { Page } from '../shared/paging.ts';
import { presenterOf } from './presenter.ts';
import type { ListFilter } from './repository.ts';
import type { Resource } from './resource.ts';
import type { AnyStored, Listed } from './rows.ts';
import type { ResourceUseCases } from './use-cases.ts';
import { validatorsOf } from './validate.ts';

// The filters a list request names (`?status=2`), each an integer enum of the resource; a bad value is 400.
function filtersOf(resource: Resource, query: URLSearchParams): ListFilter[] {
  const filters: ListFilter[] = [];
  for (const field of resource.filters) {
    const spec = resource.fields[field];
    const choices = spec?.kind === 'scalar' ? spec.choices : undefined;
    const value = choices === undefined ? null : parseEnumFilter(query, field, choices);
    if (value !== null) filters.push({ field, value });
  }
  return filters;
}

/** A list handler: keyset pages, newest first, filtered; a page read at once (SQLite) is answered at once. */
function listHandler(resource: Resource, useCases: ResourceUseCases, present: (stored: Listed) => unknown): Handler {
  return (ctx) => {
    const filters = filtersOf(resource, ctx.query);
    // The filters are part of the list's name, so a cursor only continues the list it came from.
    const list = resource.plural + filters.map((filter) => `;${filter.field}=${filter.value}`).join('');
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest(list, ctx.query);
    const reply = (page: Page<Listed>): Reply => {
      const link = nextLink(resource.path, list, request, page, filters.map((filter) => `&${filter.field}=${filter.value}`).join(''));
      return ok(page.items.map(present), link === undefined ? undefined : { link });
    };
    const page = useCases.list({ ...request, filters });
    return page instanceof Promise ? page.then(reply) : reply(page);
  };
}

/** Registers the five endpoints of `resource` (docs/api.md): thin handlers from HTTP to its use cases and back. */
export function addResourceRoutes(router: Router<Handler>, resource: Resource, useCases: ResourceUseCases, writes: WriteDeps): void {
  const present = presenterOf(resource);
  const { validateNew, validatePatch } = validatorsOf(resource);
  const item: ItemSpec<AnyStored> = { noun: resource.singular, present };
  router.add('GET', resource.path, Scope.read, listHandler(resource, useCases, present));
  router.add('GET', `${resource.path}/{id}`, Scope.read, readHandler(item, useCases.get));
  const create = createHandler(writes, {
    validate: validateNew,
    async execute(tx, input) {
      const stored = await useCases.create(tx, input);
      return created(`${resource.path}/${stored.id}`, present(stored), entityTag(stored.version));
    },
  });
  router.add('POST', resource.path, Scope.write, create);
  router.add('PATCH', `${resource.path}/{id}`, Scope.write, patchHandler(writes, { ...item, validate: validatePatch, change: useCases.change }));
  router.add('DELETE', `${resource.path}/{id}`, Scope.write, deleteHandler(writes, { ...item, remove: useCases.remove }));
}
