import { Scope } from '../callers/scopes.ts';
import { createHandler } from '../http/create-handler.ts';
import { entityTag, refuseMalformedPreconditions } from '../http/conditional.ts';
import { deleteHandler, type ItemSpec, patchHandler, readHandler } from '../http/item-handlers.ts';
import { listReply, nextLink, parseEnumFilter, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, type Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { WriteDeps } from '../http/write-input.ts';
import type { Page } from '../shared/paging.ts';
import type { VersionView } from '../versions/api-versions.ts';
import type { UpgradeSettings } from '../versions/model.ts';
import { presenterIn, type Presenter } from './presenter.ts';
import type { ListFilter } from './repository.ts';
import type { Resource } from './resource.ts';
import type { AnyStored, Listed } from './rows.ts';
import type { ResourceUseCases } from './use-cases.ts';
import { type Validators, validatorsOf } from './validate.ts';

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
function listHandler(resource: Resource, useCases: ResourceUseCases, shownIn: (version: VersionView) => Presenter): Handler {
  return (ctx) => {
    const filters = filtersOf(resource, ctx.query);
    // The filters are part of the list's name, so a cursor only continues the list it came from.
    const list = resource.plural + filters.map((filter) => `;${filter.field}=${filter.value}`).join('');
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest(list, ctx.query);
    const reply = (page: Page<Listed>): Reply => {
      const link = nextLink(resource.path, list, request, page, filters.map((filter) => `&${filter.field}=${filter.value}`).join(''));
      const present = shownIn(ctx.version);
      return listReply(ctx.version, page.items.map((item) => present(item)), link);
    };
    const page = useCases.list({ ...request, filters });
    return page instanceof Promise ? page.then(reply) : reply(page);
  };
}

/**
 * Registers the five endpoints of `resource` (docs/api.md): thin handlers from HTTP to its use cases
 * and back. Each request is validated by the fields of its API version and carried up to the newest
 * (`settings` fills in what an older version cannot say); each answer is carried down to its version.
 */
export function addResourceRoutes(router: Router<Handler>, resource: Resource, useCases: ResourceUseCases, writes: WriteDeps, settings: UpgradeSettings): void {
  const shownIn = presenterIn(resource);
  const kind = resource.plural;
  const present = (stored: AnyStored, version: VersionView): unknown => shownIn(version)(stored);
  const validators = new Map<VersionView, Validators>();
  const validatorsIn = (version: VersionView): Validators => {
    let found = validators.get(version);
    if (found === undefined) {
      found = validatorsOf({ fields: version.fieldsOf(resource) });
      validators.set(version, found);
    }
    return found;
  };
  const upgraded = (version: VersionView, mode: 'create' | 'patch', validated: ReturnType<Validators['validateNew']>): typeof validated =>
    validated.ok ? { ok: true, value: version.upgrade(kind, validated.value, { mode, settings }) } : validated;
  const item: ItemSpec<AnyStored> = { noun: resource.singular, kind, present };
  router.add('GET', resource.path, Scope.read, listHandler(resource, useCases, shownIn));
  router.add('GET', `${resource.path}/{id}`, Scope.read, readHandler(item, useCases.get));
  const create = createHandler(writes, {
    validate: (body, version) => upgraded(version, 'create', validatorsIn(version).validateNew(body)),
    async execute(tx, input, version) {
      const stored = await useCases.create(tx, input);
      return created(`${resource.path}/${stored.id}`, present(stored, version), entityTag(stored.version, version.tagSuffix(kind)));
    },
    // A create that reads for its checks first cannot be one statement.
    oneStatement: resource.checks.length === 0,
  });
  router.add('POST', resource.path, Scope.write, create);
  const validatePatch = (body: unknown, version: VersionView) => upgraded(version, 'patch', validatorsIn(version).validatePatch(body));
  router.add('PATCH', `${resource.path}/{id}`, Scope.write, patchHandler(writes, { ...item, validate: validatePatch, change: useCases.change }));
  router.add('DELETE', `${resource.path}/{id}`, Scope.write, deleteHandler(writes, { ...item, remove: useCases.remove }));
}
