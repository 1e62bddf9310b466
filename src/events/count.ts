import type { Repositories, Storage } from '../db/storage.ts';
import type { ResourceRepositories, ResourceRepository } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import type { EventType } from './model.ts';

type Recorded = EventType[];

// A repository whose writes note the event the engine records with each, as the engines do: one per
// insert and update, one per delete that found its row.
function observed(repository: ResourceRepository, resource: Resource, recorded: Recorded): ResourceRepository {
  const { created, updated, deleted } = resource.events;
  return {
    insert: async (row) => {
      const stored = await repository.insert(row);
      recorded.push(created);
      return stored;
    },
    findById: (id) => repository.findById(id),
    findForUpdate: (id) => repository.findForUpdate(id),
    update: async (stored) => {
      await repository.update(stored);
      recorded.push(updated);
    },
    remove: async (id) => {
      const existed = await repository.remove(id);
      if (existed) recorded.push(deleted);
      return existed;
    },
    listBefore: (beforeId, limit, filters) => repository.listBefore(beforeId, limit, filters),
  };
}

function observedRepositories(tx: Repositories, resources: readonly Resource[], recorded: Recorded): Repositories {
  const observedResources: Record<string, ResourceRepository> = {};
  for (const resource of resources) {
    const repository = tx.resources[resource.plural];
    if (repository !== undefined) observedResources[resource.plural] = observed(repository, resource, recorded);
  }
  // Read through on use: a SQLite transaction's repositories are a view (src/sqlite/revocable.ts) that spreads to nothing.
  return {
    resources: observedResources as ResourceRepositories,
    idempotency: tx.idempotency,
    keys: tx.keys,
    webhooks: tx.webhooks,
    webhookDeliveries: tx.webhookDeliveries,
  };
}

/**
 * `storage` whose writes call `count` for each event they recorded, once the write is committed: a
 * work that fails, or whose transaction does not commit, counts nothing, and a work run again (a
 * PostgreSQL retry) counts only its last run. For events_recorded_total; src/app.ts wires it only
 * when metrics are on, so without them a write allocates nothing more.
 */
export function countingEvents(storage: Storage, resources: readonly Resource[], count: (type: EventType) => void): Storage {
  const counted = (run: Storage['transaction']): Storage['transaction'] => (work) => {
    let recorded: Recorded = [];
    return run((tx) => {
      recorded = [];
      return work(observedRepositories(tx, resources, recorded));
    }).then((result) => {
      for (const type of recorded) count(type);
      return result;
    });
  };
  return { ...storage, transaction: counted(storage.transaction), singleWrite: counted(storage.singleWrite) };
}
