import { EVENT_TYPE_NAMES, EVENT_TYPES, type EventType } from '../events/model.ts';

export { eventTypeNamed } from '../events/model.ts';

/** Every event type's wire name, in type order: what a webhook's `events` may list. */
export const EVENT_NAMES: readonly string[] = EVENT_TYPES.map((type) => EVENT_TYPE_NAMES[type]);

/** The wire name of a stored type number. */
export function nameOfEventType(type: number): string {
  return EVENT_TYPE_NAMES[type as EventType] ?? String(type);
}
