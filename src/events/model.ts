/**
 * An event type: an integer in storage (each resource numbers its own in its description), a name on
 * the wire (`product.created`, docs/events.md); src/events/catalogue.ts knows them all.
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

/** The type mask of every type: all bits set (bit n for type n), so a type added later is in the unfiltered feed. */
export const ALL_TYPES_MASK = -1;

/** The bit mask of a set of event types (bit n for type n, n in 1..62), the form the feeds' statements take; null: every type. */
export function typeMask(types: readonly EventType[] | null): number | bigint {
  if (types === null) return ALL_TYPES_MASK;
  const mask = types.reduce((bits, type) => bits | (1n << BigInt(type)), 0n);
  return mask <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(mask) : mask;
}
