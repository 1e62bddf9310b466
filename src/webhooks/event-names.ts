import { EVENT_TYPE_NAMES, type EventType } from '../events/model.ts';

/** Every event type's wire name, in type order: what a webhook's `events` may list. */
export const EVENT_NAMES: readonly string[] = Object.values(EVENT_TYPE_NAMES);

/** The type number of a wire name, or undefined for a name no event has. */
export function eventTypeNamed(name: string): EventType | undefined {
  const found = (Object.entries(EVENT_TYPE_NAMES) as [string, string][]).find(([, known]) => known === name);
  return found === undefined ? undefined : (Number(found[0]) as EventType);
}

/** The wire name of a type number. */
export function nameOfEventType(type: number): string {
  return (EVENT_TYPE_NAMES as Readonly<Record<number, string>>)[type] ?? String(type);
}
