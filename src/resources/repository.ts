import type { Resource } from './resource.ts';
import type { AnyStored, Listed } from './rows.ts';

/** A list filter: only the resources whose integer enum `field` is `value` (`?status=2`). */
export interface ListFilter {
  readonly field: string;
  readonly value: number;
}

/** A new resource to insert: everything but what the database assigns. */
export type NewRow<S extends AnyStored = AnyStored> = Omit<S, 'id' | 'version'>;

/**
 * Storage of one resource. Each engine implements it once for every resource, from its description
 * (src/sqlite/resources.ts, src/postgres/resources.ts); every write records the resource's event in
 * the same transaction.
 */
export interface ResourceRepository<S extends AnyStored = AnyStored> {
  /** Stores a new resource at version 1; the database assigns an id never used before. */
  insert(resource: NewRow<S>): Promise<S>;
  findById(id: number): Promise<S | undefined>;
  /** In a write transaction: reads the resource and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: number): Promise<S | undefined>;
  /** Stores every field of `resource` (found by its id), updatedAt and version included. */
  update(resource: S): Promise<void>;
  /** Deletes the resource; resolves to whether it existed. */
  remove(id: number): Promise<boolean>;
  /**
   * Up to `limit` resources with id below `beforeId` (all when null) that pass every filter, newest
   * first, without their versions. An engine that reads without waiting (SQLite) answers at once.
   */
  listBefore(beforeId: number | null, limit: number, filters: readonly ListFilter[]): Listed<S>[] | Promise<Listed<S>[]>;
}

/** Every resource's repository, by its plural. */
export type ResourceRepositories = Readonly<Record<string, ResourceRepository>>;

/** The repository of `resource` among `repositories`, typed by its description. */
export function repositoryOf<S extends AnyStored>(repositories: ResourceRepositories, resource: Resource): ResourceRepository<S> {
  const repository = repositories[resource.plural];
  if (repository === undefined) throw new Error(`no repository for ${resource.plural}: is it registered with the storage?`);
  return repository as unknown as ResourceRepository<S>;
}
