import { presenterIn } from '../resources/presenter.ts';
import type { Resource } from '../resources/resource.ts';
import { rowReader } from '../resources/rows.ts';
import type { VersionView } from '../versions/api-versions.ts';
import type { StoredEvent } from './model.ts';

/** What an event type is: its stored number, its wire name, and how its data is presented in an API version. */
interface EventKind {
  readonly type: number;
  readonly name: string;
  present(row: readonly unknown[], version: VersionView): unknown;
}

/** Every event type the service records, derived from its resources: names, numbers and the Event's presenter. */
export interface EventCatalogue {
  /** Every stored number, lowest first. */
  readonly types: readonly number[];
  /** Every wire name, in the order of `types`. */
  readonly names: readonly string[];
  nameOf(type: number): string;
  /** The stored number of a wire name, or undefined for a name that is no event type. */
  typeNamed(name: string): number | undefined;
  /** The Event representation of docs/events.md in `version`: exactly these members, in this order; `data` as that version shows the resource. */
  present(event: StoredEvent, version: VersionView): object;
  /** The one JSON text of an Event in `version`, the same bytes in the feed, the stream and webhook deliveries. */
  json(event: StoredEvent, version: VersionView): string;
}

/**
 * The catalogue of `resources`' events: each resource has `<singular>.created`, `.updated` and
 * `.deleted`, numbered by its description; an event's `data` is the resource's representation, made
 * by the resource's own presenter from the row the event holds (in the order of its columns).
 */
export function eventCatalogue(resources: readonly Resource[]): EventCatalogue {
  const kinds = new Map<number, EventKind>();
  for (const resource of resources) {
    const shownIn = presenterIn(resource);
    const fromRow = rowReader(resource.columns);
    for (const [action, type] of Object.entries(resource.events)) {
      if (kinds.has(type)) throw new Error(`the event type number ${type} of ${resource.plural} is taken by ${kinds.get(type)?.name}`);
      kinds.set(type, { type, name: `${resource.singular}.${action}`, present: (row, version) => shownIn(version)(fromRow(row)) });
    }
  }
  const types = [...kinds.keys()].sort((a, b) => a - b);
  const byName = new Map([...kinds.values()].map((kind) => [kind.name, kind.type]));
  const kindOf = (type: number): EventKind => {
    const kind = kinds.get(type);
    // An event of a resource no longer served: its migration should have deleted them (docs/extending.md).
    if (kind === undefined) throw new Error(`an event of type ${type}, which no resource records`);
    return kind;
  };
  const present = (event: StoredEvent, version: VersionView): object => {
    const kind = kindOf(event.type);
    return { id: event.id, type: kind.name, createdAt: event.createdAt, data: kind.present(event.row, version) };
  };
  return {
    types,
    names: types.map((type) => kindOf(type).name),
    nameOf: (type) => kinds.get(type)?.name ?? String(type),
    typeNamed: (name) => byName.get(name),
    present,
    json: (event, version) => JSON.stringify(present(event, version)),
  };
}
