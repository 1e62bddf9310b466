import type { FieldError } from '../http/errors.ts';

/** A validator's answer: the typed value, or every field error found. */
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A JSON object as parsed: members by name, no prototype tricks. */
export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own member of `body`; inherited names such as `constructor` never count. */
export function member(body: JsonObject, field: string): unknown {
  return Object.hasOwn(body, field) ? body[field] : undefined;
}

export function fieldError(field: string, code: string, detail: string): FieldError {
  return { pointer: `/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`, code, detail };
}

// C0 controls, DEL and C1 controls (API.md §3), and lone surrogates: UTF-8 cannot carry
// them, so SQLite would store U+FFFD and a later read would differ from the 201's body.
const INVALID_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;
/** The longest name accepted, in code points after trimming (API.md §3). */
export const MAX_NAME_LENGTH = 200;

/** Checks a `name` field; returns the trimmed value or pushes errors. */
export function validateName(body: JsonObject, field: string, errors: FieldError[]): string {
  const value = member(body, field);
  if (value === undefined) {
    errors.push(fieldError(field, 'required', `${field} is required`));
    return '';
  }
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
}

/** Checks an integer field against inclusive bounds; strings are not coerced. */
export function validateInteger(
  value: unknown,
  field: string,
  bounds: { min: number; max: number },
  errors: FieldError[],
): number {
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
}

/** Reports every member not in `allowed` as unknown_field (own keys, `__proto__` included). */
export function rejectUnknownFields(body: JsonObject, allowed: readonly string[], errors: FieldError[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) errors.push(fieldError(key, 'unknown_field', `${key} is not a known field`));
  }
}

/** The error for a body that is valid JSON but not an object. */
export const NOT_AN_OBJECT: FieldError = { pointer: '', code: 'type', detail: 'The request body must be a JSON object.' };
