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

/** A use case's rule on the result of a change: the refusal it answers, or null to let it through (a promise when it reads other rows). */
export type ChangeRule<T, R> = (current: T, next: T) => R | null | Promise<R | null>;

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `current` with a validated merge patch applied (RFC 7396): each member replaces its field, and a
 * member that is an object (a price's `{ "amount": 5 }`) is merged into the field's object, member by member.
 */
export function merged<T extends object>(current: T, patch: Partial<T>): T {
  const next: Record<string, unknown> = { ...(current as Readonly<Record<string, unknown>>) };
  for (const [field, value] of Object.entries(patch)) {
    const before = next[field];
    next[field] = isPlainObject(value) && isPlainObject(before) ? { ...before, ...value } : value;
  }
  return next as T;
}

// Whether a patched field holds the same value as before (an object field: every member the same).
function same(before: unknown, after: unknown): boolean {
  if (!isPlainObject(before) || !isPlainObject(after)) return before === after;
  return Object.keys(after).every((member) => before[member] === after[member]);
}

/**
 * Applies a merge patch inside a write transaction: the resource must exist, then the precondition
 * hold, then the use case's rule accept the result. A patch that changes no value writes nothing
 * and keeps updatedAt and version.
 */
export async function applyPatch<T extends Versioned, R = never>(
  repository: ChangeableRepository<T>,
  change: { id: number; patch: Partial<T>; precondition: Precondition; now: Date },
  rule: ChangeRule<T, R> | null = null,
): Promise<ChangeOutcome<T> | { kind: 'refused'; refusal: R }> {
  const current = await repository.findForUpdate(change.id);
  if (current === undefined) return { kind: 'not_found' };
  if (!change.precondition(current.version)) return { kind: 'precondition_failed' };
  const next = merged(current, change.patch);
  const refusal = rule === null ? null : await rule(current, next);
  if (refusal !== null) return { kind: 'refused', refusal };
  if (Object.keys(change.patch).every((field) => same(current[field as keyof T], next[field as keyof T]))) return { kind: 'unchanged', resource: current };
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
