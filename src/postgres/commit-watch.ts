import type { CommitWatch } from '../db/commit-watch.ts';
import type { PostgresClient } from './client.ts';

/** The channel every process of the service notifies after a commit and listens on. */
export const COMMIT_CHANNEL = 'svc_commits';
/** The slow poll behind the notifications, for those lost while a listener was away. */
export const FALLBACK_POLL_MS = 5_000;
// Notifications of one process are sent at most this often: a burst of writes costs one or two.
const NOTIFY_SPACING_MS = 50;

/**
 * Commits of every process on the same PostgreSQL database: after a commit, a process sends
 * `pg_notify` (outside the write, so no writer waits on it; many commits close together share one);
 * each process with streams open LISTENs on one connection of its own and polls slowly as well.
 */
export function watchPostgresCommits(client: PostgresClient, pollMs = FALLBACK_POLL_MS): CommitWatch {
  let sending = false;
  let more = false;
  function announce(): void {
    if (sending) {
      more = true;
      return;
    }
    sending = true;
    const done = (): void => {
      setTimeout(() => {
        sending = false;
        if (more) {
          more = false;
          announce();
        }
      }, NOTIFY_SPACING_MS).unref();
    };
    // A lost notification costs a delay until the next poll, never an event.
    client.rows(`SELECT pg_notify('${COMMIT_CHANNEL}', '')`).then(done, done);
  }
  return {
    announce,
    listen(onCommit) {
      const stopListening = client.listen?.(COMMIT_CHANNEL, onCommit) ?? (() => {});
      const timer = setInterval(onCommit, pollMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        stopListening();
      };
    },
  };
}
