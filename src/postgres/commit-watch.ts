import type { CommitWatch } from '../db/commit-watch.ts';
import type { PostgresClient } from './client.ts';

/** The channel every process notifies after a commit: what wakes the sequencer (src/postgres/sequencer.ts). */
export const COMMIT_CHANNEL = 'svc_commits';
/** The channel the sequencer notifies when it gave events positions: what wakes the live streams. */
export const EVENTS_CHANNEL = 'svc_events';
/** The slow poll behind the notifications, for those lost while a listener was away. */
export const FALLBACK_POLL_MS = 5_000;
// Notifications of one process are sent at most this often: a burst of writes costs one or two.
const NOTIFY_SPACING_MS = 50;

/**
 * Commits of every process on the same PostgreSQL database. An event can be read once the sequencer
 * gave it a position: after a commit, a process wakes its own sequencer when it is the one, else sends
 * `pg_notify` to it (outside the write, so no writer waits on it; many commits close together share
 * one). The sequencer notifies EVENTS_CHANNEL as it positions; each process with streams open LISTENs
 * there on one connection of its own, and polls slowly as well.
 */
export function watchPostgresCommits(client: PostgresClient, pollMs = FALLBACK_POLL_MS): CommitWatch {
  let sending = false;
  let more = false;
  function announce(): void {
    if (client.sequencer?.wake() === true) return;
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
    // A lost notification costs a delay until the sequencer's poll, never an event.
    client.rows(`SELECT pg_notify('${COMMIT_CHANNEL}', '')`).then(done, done);
  }
  return {
    announce,
    listen(onPositioned) {
      const stopListening = client.listen?.(EVENTS_CHANNEL, onPositioned) ?? (() => {});
      const timer = setInterval(onPositioned, pollMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        stopListening();
      };
    },
  };
}
