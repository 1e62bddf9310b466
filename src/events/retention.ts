import { type Sweep, type SweepOptions, startSweep } from '../shared/sweep.ts';
import type { EventRepository } from './repository.ts';

/** How often a process sweeps, and how much one step deletes (the defaults of SweepOptions: 15 s, 500 events, 200 steps). */
export type RetentionOptions = SweepOptions;

/** A running retention sweep: stop() ends it, waiting for a step in flight. */
export type EventRetention = Pick<Sweep, 'sweep' | 'stop'>;

/**
 * Deletes expired events (SVC_EVENTS_RETENTION) in the background of a serving process (startSweep):
 * every `intervalMs` with jitter, in small steps, each its own short transaction, the next one on the
 * next turn of the event loop. Every serving process runs one; steps of several processes at once only
 * find less to delete. The timer never keeps the process alive.
 */
export function startEventRetention(source: { readonly events: EventRepository }, options: RetentionOptions = {}): EventRetention {
  const { sweep, stop } = startSweep([(maxRows) => source.events.deleteExpired(maxRows)], 'expired events could not be deleted; the next sweep tries again', options);
  return { sweep, stop };
}
