import type { EventRead, EventType } from './model.ts';

/**
 * Reads of the event feed; each engine implements it (src/sqlite/events.ts, src/postgres/events.ts).
 * Events are recorded by the engines' resource repositories, in the transaction of the
 * change, so nothing here writes one. Only visible events are ever returned: on PostgreSQL an event
 * is visible once no transaction that could still commit an event before it is running, so a reader
 * never passes a place that is filled later. An event past retention is never returned.
 */
export interface EventRepository {
  /**
   * Up to `limit` events after the event `after` (from the oldest kept when null), oldest first,
   * of the given types only (all when null); or why not: malformed, unknown or expired `after`.
   */
  readAfter(after: string | null, limit: number, types: readonly EventType[] | null): Promise<EventRead>;
  /** The id of the newest visible event kept, or null when there is none. */
  head(): Promise<string | null>;
  /**
   * Whether `id` names an event that is no longer kept: past retention (deleted or about to be), or at
   * or below the newest deleted place (where the feed answers 410 too). False for an id never issued
   * (or not of this engine's form) and for an event still kept.
   */
  isExpired(id: string): Promise<boolean>;
  /**
   * Deletes up to `maxRows` of the oldest events past retention, a contiguous prefix of the feed,
   * in one short statement, and remembers the newest deleted; resolves to how many it deleted.
   */
  deleteExpired(maxRows: number): Promise<number>;
}
