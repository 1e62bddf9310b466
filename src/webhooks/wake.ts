// The in-process nudges: a commit that made deliveries due (or a webhook written) wakes the
// deliverers on the same database at once, instead of at their next poll; a commit that may have made
// some (PostgreSQL) wakes them unless they know no webhook is enabled; a deleted webhook wakes the
// sweep that removes its log. Keyed by the database object, so two apps on two databases in one
// process never wake each other.
type Nudge = 'wrote' | 'committed' | 'removed';
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

/** Calls `listener` whenever a commit on `db` in this process made deliveries, or a webhook was written; returns how to stop. */
export const onWrites = (db: object, listener: () => void): (() => void) => listen(db, 'wrote', listener);

/** Tells the deliverers on `db` that deliveries were made, or a webhook written: they look at once. */
export const wroteTo = (db: object): void => tell(db, 'wrote');

/** Calls `listener` whenever a commit on `db` in this process may have made deliveries (PostgreSQL); returns how to stop. */
export const onCommits = (db: object, listener: () => void): (() => void) => listen(db, 'committed', listener);

/** Tells the deliverers on `db` that a commit may have made deliveries, if a webhook took its events. */
export const committedTo = (db: object): void => tell(db, 'committed');

/** Calls `listener` whenever a webhook of `db` is deleted in this process; returns how to stop. */
export const onRemoved = (db: object, listener: () => void): (() => void) => listen(db, 'removed', listener);

/** Tells the log's sweep on `db` that a webhook was deleted: its log is to go now. */
export const removedFrom = (db: object): void => tell(db, 'removed');
