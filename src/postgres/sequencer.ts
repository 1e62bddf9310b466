import { setTimeout as sleep } from 'node:timers/promises';
import { COMMIT_CHANNEL, EVENTS_CHANNEL } from './commit-watch.ts';
import type { PgListeningClient } from './notifications.ts';

/** The part of a node-postgres `Client` the sequencer uses: a listening connection whose queries return rows. */
export interface PgSessionClient extends PgListeningClient {
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/** This process's candidate for the one event sequencer of its database (docs/events.md, the ordering argument). */
export interface Sequencer {
  /** Starts the candidate (later calls do nothing); failures go to `onFailure`. It runs until stop(). */
  start(onFailure?: (error: Error) => void): void;
  /** A commit of this process: positions at once and answers true when this process is the sequencer. */
  wake(): boolean;
  /** Ends the candidate's connection: the lock goes with it, to another process's candidate. */
  stop(): Promise<void>;
}

/**
 * The sequencer's lock, in the two-key space of advisory locks: apart from the one-key locks of
 * idempotency keys and migrations, whatever their hashes. Advisory locks are per database; in
 * pg_locks it shows as locktype 'advisory', classid and objid these two keys, objsubid 2.
 */
export const SEQUENCER_LOCK = [7363, 6] as const;
const LOCK = SEQUENCER_LOCK.join(', ');
/** The most events one statement positions. */
const BATCH = 1_000;
/** The poll behind the notifications: a commit whose writer died before it could notify waits at most this. */
export const SEQUENCER_POLL_MS = 250;
// A positioning statement that takes longer is given up (statement_timeout), and its connection too
// a second later (a frozen server answers nothing): another session, maybe another process's, leads.
const STATEMENT_MS = 5_000;
const RETRY_FIRST_MS = 250;
// A database back from an outage gets its sequencer within about a second.
const RETRY_MAX_MS = 1_000;
const STOP_WAIT_MS = 250;

// Waits for the lock however long another session holds it (no timeout a role or database may set);
// a client that went away is noticed within a second even while waiting, and a silent peer within
// about 11 s (keepalives), so a dead node's session, and its lock, end.
const SESSION = [
  'SET statement_timeout = 0',
  'SET lock_timeout = 0',
  'SET idle_session_timeout = 0',
  'SET client_connection_check_interval = 1000',
  'SET tcp_keepalives_idle = 5',
  'SET tcp_keepalives_interval = 2',
  'SET tcp_keepalives_count = 3',
].join('; ');

// One statement, so one transaction: the next positions after the newest given (or deleted) go to the
// committed events without one, oldest insert first; readers are notified at its commit.
const POSITION = `WITH last AS (SELECT greatest(coalesce((SELECT max(position) FROM events), 0),
    coalesce((SELECT position FROM events_horizon WHERE id = 1), 0)) AS position),
  waiting AS (SELECT tx, seq, row_number() OVER (ORDER BY seq) AS n FROM (SELECT tx, seq FROM events WHERE position IS NULL ORDER BY seq LIMIT ${BATCH}) w),
  positioned AS (UPDATE events e SET position = last.position + waiting.n FROM waiting, last WHERE e.tx = waiting.tx AND e.seq = waiting.seq RETURNING 1),
  counted AS (SELECT count(*)::int AS n FROM positioned)
SELECT n, CASE WHEN n > 0 THEN pg_notify('${EVENTS_CHANNEL}', '') END AS told FROM counted`;

/**
 * The candidate of one process. It waits on its own connection for a session-level advisory lock; the
 * session that holds it is the sequencer: on each sign of a commit (a notification on COMMIT_CHANNEL,
 * a commit of this process, the poll) it gives committed events their positions. Only the session
 * holding the lock positions, and the lock is released only when that session ends (its node
 * SIGKILLed, the database restarted, stop()), so there is never more than one sequencer, and its
 * batches commit one after another. A lost connection is replaced, waiting longer each time up to 1 s.
 */
export function createSequencer(connect: () => PgSessionClient, pollMs = SEQUENCER_POLL_MS): Sequencer {
  let started = false;
  let stopped = false;
  let onFailure: (error: Error) => void = () => {};
  let current: PgSessionClient | null = null;
  // The client of the session that holds the lock, while it does.
  let leader: PgSessionClient | null = null;
  let poll: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_FIRST_MS;
  let running = false;
  let again = false;

  function lose(client: PgSessionClient, error?: Error): void {
    if (current !== client) return;
    current = null;
    if (leader === client) {
      leader = null;
      clearInterval(poll);
    }
    void client.end().catch(() => {});
    if (stopped) return;
    if (error !== undefined) onFailure(error);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void candidate();
    }, retryMs);
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  }

  async function candidate(): Promise<void> {
    if (stopped) return;
    const client = connect();
    current = client;
    client.on('error', (error) => lose(client, error));
    client.on('end', () => lose(client, new Error('the sequencer connection ended')));
    try {
      await client.connect();
      await client.query(SESSION);
      // Waits here while another session is the sequencer.
      await client.query(`SELECT pg_advisory_lock(${LOCK})`);
      await client.query(`LISTEN ${COMMIT_CHANNEL}`);
      await client.query(`SET statement_timeout = ${STATEMENT_MS}`);
    } catch (error) {
      return lose(client, error as Error);
    }
    if (current !== client) return;
    leader = client;
    retryMs = RETRY_FIRST_MS;
    client.on('notification', wake);
    poll = setInterval(wake, pollMs);
    poll.unref();
    wake();
  }

  // Positions until a statement positions less than a batch; a failure ends the session.
  async function positionAll(client: PgSessionClient): Promise<void> {
    try {
      for (;;) {
        const silent = setTimeout(() => lose(client, new Error('the sequencer connection went silent')), STATEMENT_MS + 1_000);
        const result = await client.query(POSITION).finally(() => clearTimeout(silent));
        if (Number(result.rows[0]?.['n'] ?? 0) < BATCH || leader !== client) return;
      }
    } catch (error) {
      lose(client, error as Error);
    }
  }

  function wake(): boolean {
    const client = leader;
    if (client === null) return false;
    if (running) {
      again = true;
      return true;
    }
    running = true;
    void positionAll(client).finally(() => {
      running = false;
      if (again) {
        again = false;
        wake();
      }
    });
    return true;
  }

  return {
    start(failure) {
      if (started) return;
      started = true;
      if (failure !== undefined) onFailure = failure;
      void candidate();
    },
    wake,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(poll);
      leader = null;
      const client = current;
      current = null;
      // A session still waiting for the lock notices the closed connection within a second
      // (client_connection_check_interval); the process need not wait for that.
      if (client !== null) await Promise.race([client.end().catch(() => {}), sleep(STOP_WAIT_MS)]);
    },
  };
}
