// Fixed-shape objects from a description, for the two places that make one per row: the row reader
// and the presenter. A loop that writes `object[name] = value` for changing names is a megamorphic
// store V8 cannot specialise: 8 to 12 µs for a page of 51 rows, against 1.5 µs for an object literal
// (bench/list-costs.js). So each shape is compiled once, at start-up, into the function an author
// would write by hand: `(from) => ({ "id": Number(from[0]), "title": from[1], … })` (`sourceOf` gives
// its text). Only names and indices of the resource's own description go into the text, each written
// as a JSON literal: no request data.

/** Where a member's value is read from the argument: a path of keys or indices, the id made a number. */
export interface Read {
  readonly path: readonly (string | number)[];
  /** PostgreSQL's bigint id may come as text. */
  readonly asNumber?: boolean;
}

/** A member of the object: a value read, or an object of its own members. */
export type Member = Read | Shape;

/** The object's members, in order. */
export type Shape = ReadonlyMap<string, Member>;

function isShape(member: Member): member is Shape {
  return member instanceof Map;
}

function readText(read: Read): string {
  const access = `from${read.path.map((step) => `[${JSON.stringify(step)}]`).join('')}`;
  return read.asNumber === true ? `Number(${access})` : access;
}

function literalText(shape: Shape): string {
  const members = [...shape].map(([name, member]) => `${JSON.stringify(name)}: ${isShape(member) ? literalText(member) : readText(member)}`);
  return `{ ${members.join(', ')} }`;
}

/** The source of the function that builds `shape` from its argument `from`. */
export function sourceOf(shape: Shape): string {
  return `return ${literalText(shape)};`;
}

/** The function that builds `shape` from its argument: an object literal, compiled once. */
export function objectLiteral<From, To>(shape: Shape): (from: From) => To {
  return new Function('from', sourceOf(shape)) as (from: From) => To;
}
