import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../log/logger.ts';

/** One kind of a sweep's work: changes at most `maxRows` rows in one short statement or transaction; resolves to how many. */
export type SweepStep = (maxRows: number) => Promise<number>;

/** How often a process sweeps, and how much one step does. */
export interface SweepOptions {
  /** The mean time between sweeps (15 s): what expires is dealt with well within a minute. */
  intervalMs?: number;
  /** The most rows one step (one short statement, or one group commit) changes (500). */
  stepRows?: number;
  /** The most steps of one sweep (200), so a backlog is worked off over several sweeps. */
  maxSteps?: number;
  /** Where a failed sweep is reported (a warning; the next sweep tries again). */
  logger?: Pick<Logger, 'warn'>;
}

/** A running sweep: stop() ends it, waiting for a step in flight. */
export interface Sweep {
  /** Does what is due now, step by step; resolves to how many rows it changed. */
  sweep(): Promise<number>;
  /**
   * Sweeps now, besides the timer (after the sweep under way, if any), and again while a sweep ends with
   * its steps used up: something is due that should not wait for the timer (a deleted webhook's log).
   */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Runs `steps` in the background of a serving process: every `intervalMs` (with jitter, so the processes
 * of a deployment spread out), each kind of step in order until one finds less than a full step, every
 * step its own short transaction and the next one on the next turn of the event loop, so no request ever
 * waits behind more than one step. Steps of several processes at once only find less to do. The timer
 * never keeps the process alive. `failure` is the warning a failed sweep logs.
 */
export function startSweep(steps: readonly SweepStep[], failure: string, options: SweepOptions = {}): Sweep {
  const intervalMs = options.intervalMs ?? 15_000;
  const stepRows = options.stepRows ?? 500;
  const maxSteps = options.maxSteps ?? 200;
  let stopped = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | undefined;
  // Whether the last sweep stopped with its steps used up and its last step full: there is more to do.
  let more = false;

  const runSteps = async (): Promise<number> => {
    let done = 0;
    let left = maxSteps;
    more = false;
    for (const step of steps) {
      while (left > 0 && !stopped) {
        left--;
        const count = await step(stepRows);
        done += count;
        more = count === stepRows;
        if (!more) break;
        await nextTurn();
      }
    }
    return done;
  };
  const sweep = (): Promise<number> => {
    running ??= runSteps().finally(() => {
      running = null;
    });
    return running;
  };
  const report = (error: unknown): void => options.logger?.warn(failure, { reason: (error as Error).message });
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep().catch(report).finally(schedule);
    }, intervalMs * (0.5 + Math.random()));
    timer.unref();
  };
  schedule();
  return {
    sweep,
    wake() {
      if (stopped) return;
      const drain = async (): Promise<void> => {
        await running?.catch(() => 0);
        do {
          await sweep();
          await nextTurn();
        } while (more && !stopped);
      };
      drain().catch(report);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
}
