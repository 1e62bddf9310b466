/** One entry of a problem document's `errors`: a body member (JSON Pointer) or a query parameter or header. */
export type FieldError =
  | { pointer: string; code: string; detail: string }
  | { parameter: string; code: string; detail: string };

/** A validator's answer: the typed value, or every field error found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A JSON object as parsed: members by name, no prototype tricks. */
export type JsonObject = Readonly<Record<string, unknown>>;

/**
 * A field's rule, applied to a value that is present: pushes errors, returns the value to store.
 * `field` is where the value is, as a JSON Pointer without its leading `/` (`name`, `price/amount`).
 */
export type FieldRule<T> = (value: unknown, field: string, errors: FieldError[]) => T;

/** A field of a request body: its rule, whether a create must send it, and its rule in a merge patch when that differs (an object's members are each optional there). */
export interface FieldSpec<T> {
  rule: FieldRule<T>;
  required: boolean;
  patchRule?: FieldRule<unknown>;
}

/** The fields of a resource's body, in the order errors are reported. */
export type Fields<T> = { readonly [K in keyof T]-?: FieldSpec<NonNullable<T[K]>> };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own member of `body`; inherited names such as `constructor` never count. */
function member(body: JsonObject, field: string): unknown {
  return Object.hasOwn(body, field) ? body[field] : undefined;
}

/** A member name as a JSON Pointer token (RFC 6901): `~` and `/` escaped. */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The error of the value at `field` (a pointer without its leading `/`, as a FieldRule gets it). */
export function fieldError(field: string, code: string, detail: string): FieldError {
  return { pointer: `/${field}`, code, detail };
}

/** The error for a body that is valid JSON but not an object. */
export const NOT_AN_OBJECT: FieldError = { pointer: '', code: 'type', detail: 'The request body must be a JSON object.' };

// Every member not in `fields` is unknown_field (own keys, `__proto__` included), after the field errors.
function rejectUnknownFields(body: JsonObject, fields: object, errors: FieldError[], at: string): void {
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(fields, key)) errors.push(fieldError(`${at}${pointerToken(key)}`, 'unknown_field', `${at}${key} is not a known field`));
  }
}

// A table's entries, taken once: every request of a resource is checked by the same few tables.
const ENTRIES = new WeakMap<object, readonly (readonly [string, FieldSpec<unknown>])[]>();
function entriesOf(fields: object): readonly (readonly [string, FieldSpec<unknown>])[] {
  let entries = ENTRIES.get(fields);
  if (entries === undefined) {
    entries = Object.entries(fields) as [string, FieldSpec<unknown>][];
    ENTRIES.set(fields, entries);
  }
  return entries;
}

/**
 * Checks the members of the object `body` (at `at`: '' for the request body, `price/` for a member
 * object) by `fields`; pushes every error, returns the values of the fields present.
 */
function checkMembers(body: JsonObject, fields: object, presence: Presence, errors: FieldError[], at: string): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const [name, spec] of entriesOf(fields)) {
    const field = `${at}${name}`;
    const raw = member(body, name);
    if (raw === undefined) presence.missing(field, spec, errors);
    else if (presence.accepts(field, raw, errors)) value[name] = (presence.patch ? (spec.patchRule ?? spec.rule) : spec.rule)(raw, field, errors);
  }
  rejectUnknownFields(body, fields, errors, at);
  return value;
}

/** What a create and a patch do differently: with a member that is absent, and with one that is present. */
interface Presence {
  readonly patch: boolean;
  missing(field: string, spec: FieldSpec<unknown>, errors: FieldError[]): void;
  /** False when the value is refused before its rule runs (a patch's null). */
  accepts(field: string, value: unknown, errors: FieldError[]): boolean;
}

const CREATE: Presence = {
  patch: false,
  missing: (field, spec, errors) => {
    if (spec.required) errors.push(fieldError(field, 'required', `${field} is required`));
  },
  accepts: () => true,
};

// RFC 7396: each member present replaces its field; `null` would remove a field, and no field can be removed.
const PATCH: Presence = {
  patch: true,
  missing: () => {},
  accepts: (field, raw, errors) => {
    if (raw !== null) return true;
    errors.push(fieldError(field, 'type', `${field} cannot be null: no field can be removed`));
    return false;
  },
};

function validateBody<T>(body: unknown, fields: Fields<T>, presence: Presence): Validated<Partial<T>> {
  if (!isJsonObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const value = checkMembers(body, fields, presence, errors, '');
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as Partial<T> };
}

/** Checks a create body: required fields present, each present field by its rule, no unknown member. */
export function validateCreate<T>(body: unknown, fields: Fields<T>): Validated<T> {
  return validateBody(body, fields, CREATE) as Validated<T>;
}

/**
 * Checks a JSON Merge Patch (RFC 7396) body with the same rules: each member present replaces its
 * field; `null` would remove a field, and no field can be removed, so it is a `type` error.
 */
export function validatePatch<T>(body: unknown, fields: Fields<T>): Validated<Partial<T>> {
  return validateBody(body, fields, PATCH);
}

/**
 * The rules of a field whose value is an object with members of its own (a price's `amount` and
 * `currency`): in a create, the members' own rules and `required`; in a merge patch, each member
 * optional and none null (RFC 7396 merges a member object member by member).
 */
export function objectRules<T>(members: Fields<T>): { rule: FieldRule<T>; patchRule: FieldRule<Partial<T>> } {
  const rule = (presence: Presence) => (value: unknown, field: string, errors: FieldError[]): Partial<T> => {
    if (isJsonObject(value)) return checkMembers(value, members, presence, errors, `${field}/`) as Partial<T>;
    errors.push(fieldError(field, 'type', `${field} must be an object`));
    return {};
  };
  return { rule: rule(CREATE) as FieldRule<T>, patchRule: rule(PATCH) };
}

// C0 controls, DEL and C1 controls (docs/api.md, Requests that create), and lone surrogates: UTF-8 cannot carry
// them, so SQLite would store U+FFFD and a later read would differ from the 201's body.
const INVALID_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;
/** The longest name accepted, in code points after trimming (docs/api.md, Requests that create). */
export const MAX_NAME_LENGTH = 200;

/** Whether a text has control characters (C0, DEL, C1) or lone surrogates, which no text field takes. */
export function hasInvalidCharacters(text: string): boolean {
  return INVALID_CHARACTERS.test(text);
}

/** The rule of a text: a string, trimmed, `min..max` code points after trimming, no control characters. */
export function textRule(bounds: { min: number; max: number }): FieldRule<string> {
  return (value, field, errors) => {
    if (typeof value !== 'string') {
      errors.push(fieldError(field, 'type', `${field} must be a string`));
      return '';
    }
    const trimmed = value.trim();
    // Length in code points, so an emoji counts once.
    let length = 0;
    for (const _ of trimmed) length++;
    if (length < bounds.min) errors.push(fieldError(field, 'too_short', bounds.min === 1 ? `${field} must not be empty` : `${field} must be at least ${bounds.min} characters`));
    else if (length > bounds.max) errors.push(fieldError(field, 'too_long', `${field} must be at most ${bounds.max} characters`));
    if (hasInvalidCharacters(trimmed)) {
      errors.push(fieldError(field, 'invalid_characters', `${field} must not contain control characters or lone surrogates`));
    }
    return trimmed;
  };
}

/** The rule of a `name`: a string, trimmed, 1..200 code points, no control characters. */
export const nameRule: FieldRule<string> = textRule({ min: 1, max: MAX_NAME_LENGTH });

/** The rule of an integer within inclusive bounds; strings are not coerced. */
export function integerRule(bounds: { min: number; max: number }): FieldRule<number> {
  return (value, field, errors) => {
    if (typeof value !== 'number') {
      errors.push(fieldError(field, 'type', `${field} must be a number`));
    } else if (Number.isFinite(value) && !Number.isInteger(value)) {
      // Infinity (JSON 1e400) is not a fraction: it falls through to too_large below.
      errors.push(fieldError(field, 'not_integer', `${field} must be an integer`));
    } else if (value < bounds.min) {
      errors.push(fieldError(field, 'too_small', `${field} must be at least ${bounds.min}`));
    } else if (value > bounds.max) {
      errors.push(fieldError(field, 'too_large', `${field} must be at most ${bounds.max}`));
    } else {
      return value;
    }
    return 0;
  };
}

/** The rule of an integer enum: another number is invalid_enum, anything else a type error. */
export function enumRule<T extends number>(allowed: readonly T[]): FieldRule<T> {
  return (value, field, errors) => {
    const found = allowed.find((candidate) => candidate === value);
    if (found !== undefined) return found;
    const code = typeof value === 'number' ? 'invalid_enum' : 'type';
    errors.push(fieldError(field, code, `${field} must be one of ${allowed.join(', ')}`));
    return allowed[0] as T;
  };
}
