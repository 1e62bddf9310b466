import type { Repositories } from '../db/storage.ts';
import { applyPatch, type ChangeOutcome, type Precondition, removeVersioned, type RemoveOutcome } from '../shared/changes.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import { type ListFilter, type NewRow, repositoryOf, type ResourceRepository } from './repository.ts';
import { CheckRefused } from './refused.ts';
import type { Refusal, Resource } from './resource.ts';
import type { AnyStored, Listed } from './rows.ts';

/** A page request of a resource's list, with its filters (none, or `status`). */
export interface ListRequest extends PageRequest {
  filters: readonly ListFilter[];
}

/** What a change did; `refused`: a rule of the resource refused it, with that rule's refusal. */
export type ResourceChangeOutcome<S> = ChangeOutcome<S> | { kind: 'refused'; refusal: Refusal };

/** The rules of one resource, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface ResourceUseCases<S extends AnyStored = AnyStored> {
  /**
   * Makes the resource with exactly one repository call (docs/extending.md, the one-statement create),
   * or, for a resource with checks, reads for them first (run it in a transaction); rejects with
   * CheckRefused when a check refuses it.
   */
  create(tx: Repositories, input: Readonly<Record<string, unknown>>): Promise<S>;
  get(id: number): Promise<S | undefined>;
  /** The page at once when the repository read it at once (SQLite), else its promise. */
  list(request: ListRequest): Page<Listed<S>> | Promise<Page<Listed<S>>>;
  change(tx: Repositories, id: number, patch: Readonly<Record<string, unknown>>, precondition: Precondition): Promise<ResourceChangeOutcome<S>>;
  remove(tx: Repositories, id: number, precondition: Precondition): Promise<RemoveOutcome>;
}

// The first check of `resource` that refuses `next`, or null.
async function firstRefusing(resource: Resource, tx: Repositories, next: Omit<AnyStored, 'id' | 'version'>): Promise<Refusal | null> {
  for (const check of resource.checks) if (await check.refuses(tx, next as AnyStored)) return check.refusal;
  return null;
}

// The first rule of `resource` a change breaks, then the first of its checks that refuses it, or null.
function firstBroken<S extends AnyStored>(resource: Resource, tx: Repositories, current: S, next: S): Refusal | null | Promise<Refusal | null> {
  for (const rule of resource.rules) if (rule.breaks(current, next)) return rule.refusal;
  return resource.checks.length === 0 ? null : firstRefusing(resource, tx, next);
}

/**
 * The use cases of `resource`, reading outside transactions from `reads`; `now` is the clock of
 * createdAt and updatedAt. A create fills in the defaults of the fields left out; a change must pass
 * every rule of the resource.
 */
export function createResourceUseCases<S extends AnyStored>(resource: Resource, reads: ResourceRepository<S>, now: () => Date = () => new Date()): ResourceUseCases<S> {
  const defaults = Object.entries(resource.fields).filter(([, field]) => field.default !== undefined).map(([name, field]) => [name, field.default] as const);
  const inTx = (tx: Repositories): ResourceRepository<S> => repositoryOf<S>(tx.resources, resource);
  return {
    create(tx, input) {
      const at = now().toISOString();
      const values: Record<string, unknown> = {};
      for (const [name, value] of defaults) values[name] = value;
      const row = { ...values, ...input, createdAt: at, updatedAt: at } as unknown as NewRow<S>;
      if (resource.checks.length === 0) return inTx(tx).insert(row);
      return firstRefusing(resource, tx, row).then((refusal) => {
        if (refusal !== null) throw new CheckRefused(refusal);
        return inTx(tx).insert(row);
      });
    },
    get: (id) => reads.findById(id),
    list: (request) => pageOf(request, (limit) => reads.listBefore(request.beforeId, limit, request.filters)),
    change: (tx, id, patch, precondition) =>
      applyPatch<S, Refusal>(inTx(tx), { id, patch: patch as Partial<S>, precondition, now: now() }, (current, next) => firstBroken(resource, tx, current, next)),
    remove: (tx, id, precondition) => removeVersioned(inTx(tx), id, precondition),
  };
}
