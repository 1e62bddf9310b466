import type { VersionView } from '../versions/api-versions.ts';
import { type FieldTable, fieldColumns, type Resource } from './resource.ts';
import type { Listed } from './rows.ts';

/** A representation: exactly its members, in order; no row reaches the wire as it is. */
export type Presenter = (stored: Listed) => Record<string, unknown>;

// One member of a representation, and how its value is read from the stored resource (newest shape).
interface Shown {
  readonly name: string;
  readonly read: (stored: Listed) => unknown;
  /** An object field's members (its own `read` is then unused). */
  readonly members?: readonly Shown[];
}

/**
 * The members of `fields` (the resource's fields in some version), each read from the newest stored
 * resource through the column it is kept in: a field a version shows under another name or shape
 * (`priceInCents`, kept in `price_in_cents`, the newest `price.amount`) reads that column's value.
 */
function shownOf(resource: Resource, fields: FieldTable): Shown[] {
  const newest = new Map(resource.columns.map((column) => [column.name, column]));
  const member = (name: string, columnName: string): Shown => {
    const column = newest.get(columnName);
    if (column === undefined) throw new Error(`${resource.plural}: ${name} is kept in ${columnName}, no column of the newest: its version's change needs a downgrade`);
    const { field, member: inner } = column;
    return { name, read: inner === undefined ? (stored) => stored[field] : (stored) => (stored[field] as Readonly<Record<string, unknown>>)[inner] };
  };
  return Object.entries(fields).map(([name, field]) => {
    const columns = fieldColumns(name, field);
    if (field.kind === 'scalar') return member(name, (columns[0] as (typeof columns)[0]).name);
    return { name, read: () => undefined, members: columns.map((column) => member(column.member ?? '', column.name)) };
  });
}

/** The presenter that shows `fields` (the newest unless given): `id`, each field in its order, `createdAt`, `updatedAt`. */
export function presenterOf(resource: Resource, fields: FieldTable = resource.fields): Presenter {
  const shown = shownOf(resource, fields);
  return (stored) => {
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
  };
}

/**
 * `resource`'s presenter in each API version, made once per version: its fields in that version
 * (docs/versions.md), or, where a later change reshapes it by hand, the newest carried down the chain.
 */
export function presenterIn(resource: Resource): (version: VersionView) => Presenter {
  const newest = presenterOf(resource);
  const made = new Map<VersionView, Presenter>();
  return (version) => {
    let presenter = made.get(version);
    if (presenter === undefined) {
      presenter = version.reshapes(resource.plural)
        ? (stored) => version.downgrade(resource.plural, newest(stored)) as Record<string, unknown>
        : presenterOf(resource, version.fieldsOf(resource));
      made.set(version, presenter);
    }
    return presenter;
  };
}
