// The in-process nudges: a commit that may have made deliveries due wakes the deliverers on the same
// database at once, instead of at their next poll; a deleted webhook wakes the sweep that removes its
// log. Keyed by the database object, so two apps on two databases in one process never wake each other.
type Nudge = 'wrote' | 'removed';
const listeners = new WeakMap<object, Map<Nudge, Set<() => void>>>();

function listenersOf(db: object, nudge: Nudge): Set<() => void> {
  let byNudge = listeners.get(db);
  if (byNudge === undefined) listeners.set(db, (byNudge = new Map()));
  let set = byNudge.get(nudge);
  if (set === undefined) byNudge.set(nudge, (set = new Set()));
  return set;
}

function listen(db: object, nudge: Nudge, listener: () => void): () => void {
  const set = listenersOf(db, nudge);
  set.add(listener);
  return () => set.delete(listener);
}

function tell(db: object, nudge: Nudge): void {
  for (const listener of listeners.get(db)?.get(nudge) ?? []) listener();
}

/** Calls `listener` whenever a write on `db` commits in this process; returns how to stop. */
export const onWrites = (db: object, listener: () => void): (() => void) => listen(db, 'wrote', listener);

/** Tells the deliverers on `db` that a write committed. */
export const wroteTo = (db: object): void => tell(db, 'wrote');

/** Calls `listener` whenever a webhook of `db` is deleted in this process; returns how to stop. */
export const onRemoved = (db: object, listener: () => void): (() => void) => listen(db, 'removed', listener);

/** Tells the log's sweep on `db` that a webhook was deleted: its log is to go now. */
export const removedFrom = (db: object): void => tell(db, 'removed');
