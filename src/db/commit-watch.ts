import type { Storage } from './storage.ts';

/**
 * How the processes of one service learn that new events can be read (docs/events.md, the live
 * stream): each engine implements it (src/sqlite/commit-watch.ts, src/postgres/commit-watch.ts). A
 * sign may come when nothing new can be read; it must come within a second of a commit by any process.
 */
export interface CommitWatch {
  /** This process committed a write: see that a sign follows, here and in the other processes. */
  announce(): void;
  /** Calls `onCommit` on signs that new events may be readable, until the returned function is called. */
  listen(onCommit: () => void): () => void;
}

/** `storage` with `onCommit` called after each write that committed (its promise resolved). */
export function signalCommits(storage: Storage, onCommit: () => void): Storage {
  const after = <T>(result: T): T => {
    onCommit();
    return result;
  };
  return {
    ...storage,
    transaction: (work) => storage.transaction(work).then(after),
    singleWrite: (work) => storage.singleWrite(work).then(after),
  };
}
