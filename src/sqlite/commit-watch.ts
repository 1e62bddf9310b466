import type { DatabaseSync } from 'node:sqlite';
import type { CommitWatch } from '../db/commit-watch.ts';

/** How often `PRAGMA data_version` is read while someone listens: a commit elsewhere is seen within this. */
export const DATA_VERSION_POLL_MS = 200;

/**
 * Commits of other processes on the same SQLite file (the workers of SVC_WORKERS), seen by polling
 * `PRAGMA data_version`: a read of the connection's own memory, which changes when another connection
 * committed. Polled only while someone listens. This process's own commits are readable at once:
 * announce() tells its listeners directly.
 */
export function watchSqliteCommits(db: DatabaseSync, pollMs = DATA_VERSION_POLL_MS): CommitWatch {
  const listeners = new Set<() => void>();
  return {
    announce() {
      for (const listener of listeners) listener();
    },
    listen(onCommit) {
      listeners.add(onCommit);
      const statement = db.prepare('PRAGMA data_version');
      const read = (): unknown => {
        try {
          return (statement.get() as { data_version?: unknown } | undefined)?.data_version;
        } catch {
          // Closed, or the file busy for a moment: the next poll tries again.
          return undefined;
        }
      };
      let seen = read();
      const timer = setInterval(() => {
        const now = read();
        if (now === undefined || now === seen) return;
        seen = now;
        onCommit();
      }, pollMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        listeners.delete(onCommit);
      };
    },
  };
}
