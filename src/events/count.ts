import type { Repositories, Storage } from '../db/storage.ts';
import type { ProductRepository } from '../products/repository.ts';
import type { WorkspaceRepository } from '../workspaces/repository.ts';
import { EventType } from './model.ts';

type Recorded = EventType[];

// A repository whose writes note the event the engine records with each, as the engines do: one per
// insert and update, one per delete that found its row.
function observed<R extends ProductRepository | WorkspaceRepository>(repository: R, types: readonly [EventType, EventType, EventType], recorded: Recorded): R {
  const target = repository as ProductRepository & WorkspaceRepository;
  const list = target.listBefore as (...args: unknown[]) => Promise<unknown[]>;
  const view = {
    insert: async (resource: Parameters<typeof target.insert>[0]) => {
      const stored = await target.insert(resource);
      recorded.push(types[0]);
      return stored;
    },
    findById: (id: number) => target.findById(id),
    findForUpdate: (id: number) => target.findForUpdate(id),
    update: async (resource: Parameters<typeof target.update>[0]) => {
      await target.update(resource);
      recorded.push(types[1]);
    },
    remove: async (id: number) => {
      const existed = await target.remove(id);
      if (existed) recorded.push(types[2]);
      return existed;
    },
    listBefore: (...args: unknown[]) => list.apply(target, args),
  };
  return view as unknown as R;
}

function observedRepositories(tx: Repositories, recorded: Recorded): Repositories {
  return {
    products: observed(tx.products, [EventType.productCreated, EventType.productUpdated, EventType.productDeleted], recorded),
    workspaces: observed(tx.workspaces, [EventType.workspaceCreated, EventType.workspaceUpdated, EventType.workspaceDeleted], recorded),
    idempotency: tx.idempotency,
    keys: tx.keys,
  };
}

/**
 * `storage` whose writes call `count` for each event they recorded, once the write is committed: a
 * work that fails, or whose transaction does not commit, counts nothing, and a work run again (a
 * PostgreSQL retry) counts only its last run. For events_recorded_total; src/app.ts wires it only
 * when metrics are on, so without them a write allocates nothing more.
 */
export function countingEvents(storage: Storage, count: (type: EventType) => void): Storage {
  const counted = (run: Storage['transaction']): Storage['transaction'] => (work) => {
    let recorded: Recorded = [];
    return run((tx) => {
      recorded = [];
      return work(observedRepositories(tx, recorded));
    }).then((result) => {
      for (const type of recorded) count(type);
      return result;
    });
  };
  return { ...storage, transaction: counted(storage.transaction), singleWrite: counted(storage.singleWrite) };
}
