import { type FieldRule, fieldError } from '../shared/validation.ts';

/** What a pinned version (a key's or a webhook's `apiVersion`) is checked against, and what a create that names none pins. */
export interface PinRules {
  /** The versions served now (past their sunset excluded), newest first: the only ones that may be pinned. */
  served: readonly string[];
  /** What a create that names no `apiVersion` pins: the request's version (bin/keys.js: SVC_API_VERSION). */
  defaultVersion: string;
  /** Whether a body may name `apiVersion`: the request's version has the member (before it, `unknown_field`). */
  pinnable: boolean;
}

/** A version served now, by its id: any other string is `invalid_enum`, any other value a `type` error. */
export function pinRule(served: readonly string[]): FieldRule<string> {
  return (value, field, errors) => {
    if (typeof value === 'string' && served.includes(value)) return value;
    const code = typeof value === 'string' ? 'invalid_enum' : 'type';
    errors.push(fieldError(field, code, `${field} must be a version served: one of ${served.join(', ')}`));
    return '';
  };
}
