// The in-process nudge: a commit that may have made deliveries due wakes the deliverers on the same
// database at once, instead of at their next poll. Keyed by the database object, so two apps on two
// databases in one process never wake each other.
const listeners = new WeakMap<object, Set<() => void>>();

/** Calls `listener` whenever a write on `db` commits in this process; returns how to stop. */
export function onWrites(db: object, listener: () => void): () => void {
  let set = listeners.get(db);
  if (set === undefined) listeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Tells the deliverers on `db` that a write committed. */
export function wroteTo(db: object): void {
  const set = listeners.get(db);
  if (set !== undefined) for (const listener of set) listener();
}
