import { MAX_EVENT_TYPE } from '../resources/resource.ts';

/**
 * An event type: an integer in storage (each resource numbers its own in its description), a name on
 * the wire (`order.created`, docs/events.md); src/events/catalogue.ts knows them all.
 */
export type EventType = number;

/**
 * A recorded event as storage reads it back. `id` is the engine's opaque wire id (1..64 characters of
 * [A-Za-z0-9_-]); `row` is the resource's row in the order of its columns, as it was right after
 * the change (right before it, for a delete).
 */
export interface StoredEvent {
  readonly id: string;
  readonly type: EventType;
  readonly createdAt: string;
  readonly row: readonly unknown[];
}

/** What a read of the feed found: a page of events (oldest first), or why there is none. */
export type EventRead =
  | { kind: 'events'; events: StoredEvent[] }
  /** `after` is not an id this engine could have issued. */
  | { kind: 'malformed' }
  /** `after` has the form of an id but names no event the service issued. */
  | { kind: 'unknown' }
  /** An event that follows `after` is past retention (deleted, or about to be). */
  | { kind: 'expired' };

/** The default SVC_EVENTS_RETENTION in milliseconds: 168h, a week. */
export const DEFAULT_EVENT_RETENTION_MS = 168 * 3_600_000;

/** The type mask of every type: all bits set, so a type added later is in the unfiltered feed. */
export const ALL_TYPES_MASK = -1;

/** The bit mask of a set of event types (bit n for type n, n in 1..52): the form the feeds' statements and a webhook's filter take. */
export function bitsOf(types: readonly EventType[]): number {
  return [...new Set(types)].reduce((mask, type) => mask + 2 ** type, 0);
}

/** The bit mask of the feeds' statements; null (every type) is every bit. */
export function typeMask(types: readonly EventType[] | null): number {
  return types === null ? ALL_TYPES_MASK : bitsOf(types);
}

/** The types of a mask made by bitsOf, lowest first. */
export function typesOfBits(mask: number): EventType[] {
  const types: EventType[] = [];
  for (let type = 1; type <= MAX_EVENT_TYPE; type++) if (Math.floor(mask / 2 ** type) % 2 === 1) types.push(type);
  return types;
}
