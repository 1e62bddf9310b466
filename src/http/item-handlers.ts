import type { Repositories } from '../db/storage.ts';
import type { ChangeOutcome, Precondition, RemoveOutcome, Versioned } from '../shared/changes.ts';
import type { Validated } from '../shared/validation.ts';
import { entityTag, parsePreconditions } from './conditional.ts';
import { HttpError, type OwnError } from './errors.ts';
import { type Handler, parseId, type Reply, type RequestContext } from './reply.ts';
import { checkBodyHeaders, readValidated, type WriteDeps } from './write-input.ts';
import type { VersionView } from '../versions/api-versions.ts';

// RFC 7396's media type, and plain JSON with the same meaning (docs/api.md, PATCH).
export const PATCH_TYPES: readonly string[] = ['application/merge-patch+json', 'application/json'];

/** What a resource's item handlers share: its name for details, its kind of representation, and its presenter. */
export interface ItemSpec<T extends Versioned> {
  /** `order`, as in "No order has this id." */
  noun: string;
  /** Its kind of representation (`orders`, `webhooks`): what the API versions change (docs/versions.md). */
  kind: string;
  /** Its representation in the request's API version. */
  present(resource: T, version: VersionView): unknown;
}

function notFound(noun: string): HttpError {
  return new HttpError('not_found', { detail: `No ${noun} has this id.` });
}

function idOf(ctx: RequestContext, noun: string): number {
  const id = parseId(ctx.params['id']);
  if (id === null) throw notFound(noun);
  return id;
}

/** 200 with the representation and its ETag, in the request's API version. */
export function representation<T extends Versioned>(spec: ItemSpec<T>, resource: T, version: VersionView): Reply {
  return { status: 200, body: spec.present(resource, version), headers: { etag: entityTag(resource.version, version.tagSuffix(spec.kind)) } };
}

/** GET (and HEAD) of one resource, with its ETag, under its preconditions: 412, or 304 with no body. */
export function readHandler<T extends Versioned>(spec: ItemSpec<T>, get: (id: number) => Promise<T | undefined>): Handler {
  return async (ctx) => {
    const id = idOf(ctx, spec.noun);
    const suffix = ctx.version.tagSuffix(spec.kind);
    const preconditions = parsePreconditions(ctx.req.headers, suffix);
    const resource = await get(id);
    if (resource === undefined) throw notFound(spec.noun);
    const verdict = preconditions.forRead(resource.version);
    if (verdict === 'failed') throw new HttpError('precondition_failed');
    if (verdict === 'not_modified') return { status: 304, headers: { etag: entityTag(resource.version, suffix) } };
    return representation(spec, resource, ctx.version);
  };
}

/** A use case's change, run in a write transaction; `refused`: a rule of the resource refused it, with its own error. */
type Change<T, P> = (tx: Repositories, id: number, patch: P, precondition: Precondition) => Promise<ChangeOutcome<T> | { kind: 'refused'; refusal: OwnError }>;

/** PATCH of one resource: JSON Merge Patch, validated by the create rules of the request's API version. */
export function patchHandler<T extends Versioned, P>(
  deps: WriteDeps,
  spec: ItemSpec<T> & { validate(body: unknown, version: VersionView): Validated<P>; change: Change<T, P> },
): Handler {
  return async (ctx) => {
    const id = idOf(ctx, spec.noun);
    checkBodyHeaders(ctx.req, PATCH_TYPES);
    const { forChange } = parsePreconditions(ctx.req.headers, ctx.version.tagSuffix(spec.kind));
    const { input } = await readValidated(ctx.req, deps.bodyLimitBytes, (body) => spec.validate(body, ctx.version));
    // Evaluated by the use case on the version it reads for update, in the same transaction.
    const outcome = await deps.storage.transaction((tx) => spec.change(tx, id, input, forChange));
    if (outcome.kind === 'changed' || outcome.kind === 'unchanged') return representation(spec, (outcome as { resource: T }).resource, ctx.version);
    if (outcome.kind === 'not_found') throw notFound(spec.noun);
    if (outcome.kind === 'precondition_failed') throw new HttpError('precondition_failed');
    throw new HttpError(outcome.refusal);
  };
}

/** DELETE of one resource: 204 with no body once committed. */
export function deleteHandler<T extends Versioned>(
  deps: WriteDeps,
  spec: ItemSpec<T> & { remove(tx: Repositories, id: number, precondition: Precondition): Promise<RemoveOutcome> },
): Handler {
  return async (ctx) => {
    const id = idOf(ctx, spec.noun);
    const { forChange } = parsePreconditions(ctx.req.headers, ctx.version.tagSuffix(spec.kind));
    const outcome = await deps.storage.transaction((tx) => spec.remove(tx, id, forChange));
    if (outcome.kind === 'not_found') throw notFound(spec.noun);
    if (outcome.kind === 'precondition_failed') throw new HttpError('precondition_failed');
    return { status: 204 };
  };
}
