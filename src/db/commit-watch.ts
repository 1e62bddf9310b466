import type { Storage } from './storage.ts';

/**
 * How the processes of one service learn of each other's commits (docs/events.md, Wake-ups): each
 * engine implements it (src/sqlite/commit-watch.ts, src/postgres/commit-watch.ts). A sign may come
 * when nothing new was committed; it must come within a second of a commit by another process.
 */
export interface CommitWatch {
  /** This process committed a write: tell the other processes (or nothing, when they find out alone). */
  announce(): void;
  /** Calls `onCommit` on signs of commits by other processes until the returned function is called. */
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
