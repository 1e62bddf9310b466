import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../log/logger.ts';
import type { EventRepository } from './repository.ts';

/** How often a process sweeps, and how much one step deletes. */
export interface RetentionOptions {
  /** The mean time between sweeps (15 s): an expired event is deleted well within a minute. */
  intervalMs?: number;
  /** The most events one step (one short statement, or one group commit) deletes (500). */
  stepRows?: number;
  /** The most steps of one sweep (200), so a backlog is worked off over several sweeps. */
  maxSteps?: number;
  /** Where a failed sweep is reported (a warning; the next sweep tries again). */
  logger?: Pick<Logger, 'warn'>;
}

/** A running retention sweep: stop() ends it, waiting for a step in flight. */
export interface EventRetention {
  /** Deletes what is expired now, step by step; resolves to how many events it deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Deletes expired events (SVC_EVENTS_RETENTION) in the background of a serving process: every
 * `intervalMs` (with jitter, so the processes of a deployment spread out), small steps, each its own
 * short transaction, the next one on the next turn of the event loop. Every serving process runs one;
 * steps of several processes at once only find less to delete. The timer never keeps the process alive.
 */
export function startEventRetention(source: { readonly events: EventRepository }, options: RetentionOptions = {}): EventRetention {
  const intervalMs = options.intervalMs ?? 15_000;
  const stepRows = options.stepRows ?? 500;
  const maxSteps = options.maxSteps ?? 200;
  let stopped = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | undefined;

  const sweep = (): Promise<number> => {
    running ??= (async () => {
      let deleted = 0;
      for (let step = 0; step < maxSteps && !stopped; step++) {
        const count = await source.events.deleteExpired(stepRows);
        deleted += count;
        if (count < stepRows) break;
        await nextTurn();
      }
      return deleted;
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => options.logger?.warn('expired events could not be deleted; the next sweep tries again', { reason: (error as Error).message }))
        .finally(schedule);
    }, intervalMs * (0.5 + Math.random()));
    timer.unref();
  };
  schedule();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
}
