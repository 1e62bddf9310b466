import type { VersionView } from '../versions/api-versions.ts';
import type { ColumnType } from './fields.ts';
import { type FieldTable, fieldColumns, type Resource } from './resource.ts';
import type { Listed } from './rows.ts';

/**
 * How one API version shows a resource: its representation as a JSON value, and as JSON text (the
 * bytes JSON.stringify makes of that value, written without making it: a list page of them is most
 * of a list's work).
 */
export interface Representation {
  value(stored: Listed): Record<string, unknown>;
  json(stored: Listed): string;
}

// One member of a representation: how its value is read from the stored resource and written as JSON.
interface Shown {
  readonly name: string;
  /** `,"name":`: what precedes its value in the text. */
  readonly prefix: string;
  readonly read: (stored: Listed) => unknown;
  readonly text: (value: unknown) => string;
  /** An object field's members (its `read` and `text` are then unused). */
  readonly members?: readonly Shown[];
}

// A finite number's JSON is its String(); anything else (a text) as JSON.stringify writes it.
const numberText = (value: unknown): string => (typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value));
const jsonText = (value: unknown): string => JSON.stringify(value) ?? 'null';
const textOf = (type: ColumnType | 'id' | 'time' | 'version'): ((value: unknown) => string) => (type === 'integer' || type === 'smallint' ? numberText : jsonText);

/**
 * The members of `fields` (the resource's fields in some version), each read from the newest stored
 * resource through the column it is kept in: a field a version shows under another name or shape
 * (`priceInCents`, kept in `price_in_cents`, the newest `price.amount`) reads that column's value.
 */
function shownOf(resource: Resource, fields: FieldTable): Shown[] {
  const newest = new Map(resource.columns.map((column) => [column.name, column]));
  const member = (name: string, columnName: string, type: ColumnType, first: boolean): Shown => {
    const column = newest.get(columnName);
    if (column === undefined) throw new Error(`${resource.plural}: ${name} is kept in ${columnName}, no column of the newest: its version's change needs a downgrade`);
    const { field, member: inner } = column;
    const read = inner === undefined ? (stored: Listed) => stored[field] : (stored: Listed) => (stored[field] as Readonly<Record<string, unknown>>)[inner];
    return { name, prefix: `${first ? '' : ','}${JSON.stringify(name)}:`, read, text: textOf(type) };
  };
  return Object.entries(fields).map(([name, field]) => {
    const columns = fieldColumns(name, field);
    if (field.kind === 'scalar') return member(name, (columns[0] as (typeof columns)[0]).name, field.type, false);
    const members = columns.map((column, index) => member(column.member ?? '', column.name, column.type as ColumnType, index === 0));
    return { name, prefix: `,${JSON.stringify(name)}:`, read: () => undefined, text: jsonText, members };
  });
}

/** The representation that shows `fields`: `id`, each field in its order, `createdAt`, `updatedAt`. */
export function representationOf(resource: Resource, fields: FieldTable = resource.fields): Representation {
  const shown = shownOf(resource, fields);
  return {
    value(stored) {
      const body: Record<string, unknown> = { id: stored.id };
      for (const { name, read, members } of shown) {
        if (members === undefined) body[name] = read(stored);
        else {
          const object: Record<string, unknown> = {};
          for (const inner of members) object[inner.name] = inner.read(stored);
          body[name] = object;
        }
      }
      body['createdAt'] = stored.createdAt;
      body['updatedAt'] = stored.updatedAt;
      return body;
    },
    json(stored) {
      let text = `{"id":${numberText(stored.id)}`;
      for (const { prefix, read, text: write, members } of shown) {
        if (members === undefined) text += prefix + write(read(stored));
        else {
          text += `${prefix}{`;
          for (const inner of members) text += inner.prefix + inner.text(inner.read(stored));
          text += '}';
        }
      }
      return `${text},"createdAt":${jsonText(stored.createdAt)},"updatedAt":${jsonText(stored.updatedAt)}}`;
    },
  };
}

/**
 * `resource`'s representation in each API version, made once per version: its fields in that version
 * (docs/versions.md), or, where a later change reshapes it by hand, the newest carried down the chain.
 */
export function presenterIn(resource: Resource): (version: VersionView) => Representation {
  const newest = representationOf(resource);
  const made = new Map<VersionView, Representation>();
  const chained = (version: VersionView): Representation => {
    const value = (stored: Listed): Record<string, unknown> => version.downgrade(resource.plural, newest.value(stored)) as Record<string, unknown>;
    return { value, json: (stored) => JSON.stringify(value(stored)) };
  };
  return (version) => {
    let representation = made.get(version);
    if (representation === undefined) {
      representation = version.reshapes(resource.plural) ? chained(version) : representationOf(resource, version.fieldsOf(resource));
      made.set(version, representation);
    }
    return representation;
  };
}
