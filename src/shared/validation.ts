/** One entry of a problem document's `errors`: a body member (JSON Pointer) or a query parameter or header. */
export type FieldError =
  | { pointer: string; code: string; detail: string }
  | { parameter: string; code: string; detail: string };

/** A validator's answer: the typed value, or every field error found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A JSON object as parsed: members by name, no prototype tricks. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** A field's rule, applied to a value that is present: pushes errors, returns the value to store. */
export type FieldRule<T> = (value: unknown, field: string, errors: FieldError[]) => T;

/** A field of a request body: its rule, and whether a create must send it. */
export interface FieldSpec<T> {
  rule: FieldRule<T>;
  required: boolean;
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

export function fieldError(field: string, code: string, detail: string): FieldError {
  return { pointer: `/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`, code, detail };
}

/** The error for a body that is valid JSON but not an object. */
export const NOT_AN_OBJECT: FieldError = { pointer: '', code: 'type', detail: 'The request body must be a JSON object.' };

// Every member not in `fields` is unknown_field (own keys, `__proto__` included), after the field errors.
function rejectUnknownFields(body: JsonObject, fields: object, errors: FieldError[]): void {
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(fields, key)) errors.push(fieldError(key, 'unknown_field', `${key} is not a known field`));
  }
}

/** What a create and a patch do differently: with a member that is absent, and with one that is present. */
interface Presence {
  missing(field: string, errors: FieldError[]): void;
  /** False when the value is refused before its rule runs (a patch's null). */
  accepts(field: string, value: unknown, errors: FieldError[]): boolean;
}

function validateBody<T>(body: unknown, fields: Fields<T>, presence: Presence): Validated<Partial<T>> {
  if (!isJsonObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const value: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(fields) as [string, FieldSpec<unknown>][]) {
    const raw = member(body, field);
    if (raw === undefined) presence.missing(field, errors);
    else if (presence.accepts(field, raw, errors)) value[field] = spec.rule(raw, field, errors);
  }
  rejectUnknownFields(body, fields, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as Partial<T> };
}

/** Checks a create body: required fields present, each present field by its rule, no unknown member. */
export function validateCreate<T>(body: unknown, fields: Fields<T>): Validated<T> {
  const missing = (field: string, errors: FieldError[]): void => {
    if ((fields as Record<string, FieldSpec<unknown>>)[field]?.required === true) errors.push(fieldError(field, 'required', `${field} is required`));
  };
  return validateBody(body, fields, { missing, accepts: () => true }) as Validated<T>;
}

/**
 * Checks a JSON Merge Patch (RFC 7396) body with the same rules: each member present replaces its
 * field; `null` would remove a field, and no field can be removed, so it is a `type` error.
 */
export function validatePatch<T>(body: unknown, fields: Fields<T>): Validated<Partial<T>> {
  const accepts = (field: string, raw: unknown, errors: FieldError[]): boolean => {
    if (raw !== null) return true;
    errors.push(fieldError(field, 'type', `${field} cannot be null: no field can be removed`));
    return false;
  };
  return validateBody(body, fields, { missing: () => {}, accepts });
}

// C0 controls, DEL and C1 controls (docs/api.md, POST /api/products), and lone surrogates: UTF-8 cannot carry
// them, so SQLite would store U+FFFD and a later read would differ from the 201's body.
const INVALID_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;
/** The longest name accepted, in code points after trimming (docs/api.md, POST /api/products). */
export const MAX_NAME_LENGTH = 200;

/** The rule of a `name`: a string, trimmed, 1..200 code points, no control characters. */
export const nameRule: FieldRule<string> = (value, field, errors) => {
  if (typeof value !== 'string') {
    errors.push(fieldError(field, 'type', `${field} must be a string`));
    return '';
  }
  const trimmed = value.trim();
  // Length in code points, so an emoji counts once.
  let length = 0;
  for (const _ of trimmed) length++;
  if (length < 1) errors.push(fieldError(field, 'too_short', `${field} must not be empty`));
  else if (length > MAX_NAME_LENGTH) errors.push(fieldError(field, 'too_long', `${field} must be at most ${MAX_NAME_LENGTH} characters`));
  if (INVALID_CHARACTERS.test(trimmed)) {
    errors.push(fieldError(field, 'invalid_characters', `${field} must not contain control characters or lone surrogates`));
  }
  return trimmed;
};

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
