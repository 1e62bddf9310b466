/** A stored resource that can change: `version` grows by one with every change. */
export interface Versioned {
  id: number;
  updatedAt: string;
  version: number;
}

/**
 * The one decision of a request's preconditions (over HTTP, If-Match and If-None-Match together):
 * whether a change may go ahead at the version read for update, in the change's own transaction.
 */
export type Precondition = (version: number) => boolean;

/** What a change did: changed (or nothing to change), or why it did not happen. */
export type ChangeOutcome<T> =
  | { kind: 'changed'; resource: T }
  | { kind: 'unchanged'; resource: T }
  | { kind: 'not_found' }
  | { kind: 'precondition_failed' };

/** What a delete did. */
export type RemoveOutcome = { kind: 'removed' } | { kind: 'not_found' } | { kind: 'precondition_failed' };

/** What a change needs of a repository, inside a write transaction. */
export interface ChangeableRepository<T> {
  findForUpdate(id: number): Promise<T | undefined>;
  update(resource: T): Promise<void>;
  remove(id: number): Promise<boolean>;
}

/** A use case's rule on the result of a change: the name of the refusal, or null to let it through. */
export type ChangeRule<T, R extends string> = (current: T, next: T) => R | null;

/**
 * Applies a merge patch inside a write transaction: the resource must exist, then the precondition
 * hold, then the use case's rule accept the result. A patch that changes no value writes nothing
 * and keeps updatedAt and version.
 */
export async function applyPatch<T extends Versioned, R extends string = never>(
  repository: ChangeableRepository<T>,
  change: { id: number; patch: Partial<T>; precondition: Precondition; now: Date },
  rule: ChangeRule<T, R> | null = null,
): Promise<ChangeOutcome<T> | { kind: R }> {
  const current = await repository.findForUpdate(change.id);
  if (current === undefined) return { kind: 'not_found' };
  if (!change.precondition(current.version)) return { kind: 'precondition_failed' };
  const next: T = { ...current, ...change.patch };
  const refusal = rule === null ? null : rule(current, next);
  if (refusal !== null) return { kind: refusal };
  const same = (Object.keys(change.patch) as (keyof T)[]).every((field) => next[field] === current[field]);
  if (same) return { kind: 'unchanged', resource: current };
  const changed: T = { ...next, updatedAt: change.now.toISOString(), version: current.version + 1 };
  await repository.update(changed);
  return { kind: 'changed', resource: changed };
}

/** Deletes inside a write transaction: the resource must exist, then the precondition hold. */
export async function removeVersioned<T extends Versioned>(
  repository: ChangeableRepository<T>,
  id: number,
  precondition: Precondition,
): Promise<RemoveOutcome> {
  const current = await repository.findForUpdate(id);
  if (current === undefined) return { kind: 'not_found' };
  if (!precondition(current.version)) return { kind: 'precondition_failed' };
  await repository.remove(id);
  return { kind: 'removed' };
}
