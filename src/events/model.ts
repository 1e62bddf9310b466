/** Event types: integers in storage (sequential), names on the wire (docs/events.md). */
export const EventType = {
  productCreated: 1,
  productUpdated: 2,
  productDeleted: 3,
  workspaceCreated: 4,
  workspaceUpdated: 5,
  workspaceDeleted: 6,
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** The wire name of each event type, by its stored number. */
export const EVENT_TYPE_NAMES: Readonly<Record<EventType, string>> = {
  1: 'product.created',
  2: 'product.updated',
  3: 'product.deleted',
  4: 'workspace.created',
  5: 'workspace.updated',
  6: 'workspace.deleted',
};

/** Every event type, lowest first. */
export const EVENT_TYPES: readonly EventType[] = Object.values(EventType);

/** The stored number of a wire name, or undefined for a name that is no event type. */
export function eventTypeNamed(name: string): EventType | undefined {
  return EVENT_TYPES.find((type) => EVENT_TYPE_NAMES[type] === name);
}

/** Whether an event type is about products (else workspaces). */
export function isProductEvent(type: EventType): boolean {
  return type <= EventType.productDeleted;
}

/**
 * A recorded event as storage reads it back. `id` is the engine's opaque wire id (1..64 characters of
 * [A-Za-z0-9_-]); `row` is the resource's row in its rows.ts column order (PRODUCT_COLUMNS or
 * WORKSPACE_COLUMNS), as it was right after the change (right before it, for a delete).
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
