// The places of a resource where a client puts a scalar value: each field, and each member of an
// object field, with the column it is kept in and the rule it is documented by (its JSON Schema). What
// the hostile-input and injection tests send, and what the row invariants check, derive from these.
import type { JsonSchema, ScalarField } from '../../src/resources/fields.ts';
import type { Column, Resource } from '../../src/resources/resource.ts';

type Json = Record<string, unknown>;

/** One scalar place of a resource's body. */
export interface Place {
  readonly field: string;
  /** The member of an object field, or undefined for a scalar field. */
  readonly member: string | undefined;
  /** Where a field error about it points: `/name`, `/size/label`. */
  readonly pointer: string;
  readonly column: Column;
  readonly spec: ScalarField<unknown>;
  /** What its schema's `$ref`s resolve against (an enum's named schema). */
  readonly root: { components: { schemas: Readonly<Record<string, JsonSchema>> } };
}

/** Every scalar place of `resource`, in the order of its columns. */
export function placesOf(resource: Resource): Place[] {
  return resource.columns.flatMap((column): Place[] => {
    const field = resource.fields[column.field];
    if (field === undefined) return [];
    const spec = field.kind === 'scalar' ? field : field.members[column.member ?? ''];
    if (spec === undefined) return [];
    const pointer = column.member === undefined ? `/${column.field}` : `/${column.field}/${column.member}`;
    return [{ field: column.field, member: column.member, pointer, column, spec, root: { components: { schemas: field.components } } }];
  });
}

/** The places that hold free text (a code from a list, such as a currency, is not free text). */
export function textPlacesOf(resource: Resource): Place[] {
  return placesOf(resource).filter(isFreeText);
}

/** Whether `place` takes any text within its bounds, rather than one of a list of values. */
export function isFreeText(place: Place): boolean {
  return place.spec.type === 'text' && !Object.hasOwn(place.spec.schema, 'enum');
}

/** The longest text `place` takes, in code points. */
export function maxLength(place: Place): number {
  return Number(place.spec.schema['maxLength'] ?? Infinity);
}

/** A merge patch that puts `value` at `place` alone (an object field's other members left as they are). */
export function patchAt(place: Place, value: unknown): Json {
  return { [place.field]: place.member === undefined ? value : { [place.member]: value } };
}

/** `body` with `value` at `place`, everything else kept. */
export function withValue(body: Json, place: Place, value: unknown): Json {
  return mergePatch(body, patchAt(place, value));
}

/** The value at `place` of a body or a representation. */
export function valueAt(body: Json, place: Place): unknown {
  const value = body[place.field];
  return place.member === undefined ? value : (value as Json | undefined)?.[place.member];
}

/** `patch` applied to `current` as JSON Merge Patch (RFC 7396) does, one level of member objects deep. */
export function mergePatch(current: Json, patch: Json): Json {
  const next: Json = { ...current };
  for (const [name, value] of Object.entries(patch)) {
    const before = current[name];
    const nested = typeof value === 'object' && value !== null && !Array.isArray(value) && typeof before === 'object' && before !== null;
    next[name] = nested ? { ...(before as Json), ...(value as Json) } : value;
  }
  return next;
}
