import { type Scope, SCOPE_NAMES, scopeNamed } from '../callers/scopes.ts';
import { parseDateTime } from '../shared/date-time.ts';
import { type FieldError, type FieldRule, type Fields, fieldError, nameRule, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import { pinRule, type PinRules } from '../versions/pins.ts';
import type { ApiKeyPatch, NewApiKey } from './model.ts';

// The latest expiry accepted: later instants have no RFC 3339 text (a year of five digits).
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

// An expiry as validated: `at` null for a key that never expires (a wrapper, so `null` can pass the rule).
interface Expiry {
  at: string | null;
}

interface Body {
  name: string;
  scopes: Scope[];
  expiresAt: Expiry;
  apiVersion: string;
}

/** What the version a key pins is checked against, and what a create that names none pins. */
export type KeyVersionRules = PinRules;

function elementError(field: string, index: number, code: string, detail: string): FieldError {
  return { pointer: `/${field}/${index}`, code, detail };
}

// Each entry a scope name, none twice; the pointer names the entry at fault (the second of a pair).
const scopesRule: FieldRule<Scope[]> = (value, field, errors) => {
  if (!Array.isArray(value)) {
    errors.push(fieldError(field, 'type', `${field} must be an array of scope names (${SCOPE_NAMES.join(', ')})`));
    return [];
  }
  if (value.length === 0) errors.push(fieldError(field, 'too_short', `${field} must name at least one scope`));
  const scopes: Scope[] = [];
  value.forEach((entry: unknown, index) => {
    const scope = typeof entry === 'string' ? scopeNamed(entry) : undefined;
    if (typeof entry !== 'string') errors.push(elementError(field, index, 'type', `${field}/${index} must be a string`));
    else if (scope === undefined) errors.push(elementError(field, index, 'invalid_enum', `${field}/${index} must be one of ${SCOPE_NAMES.join(', ')}`));
    else if (scopes.includes(scope)) errors.push(elementError(field, index, 'duplicate', `${field}/${index} repeats ${entry}`));
    else scopes.push(scope);
  });
  return scopes.sort((a, b) => a - b);
};

// `now` is when the request is judged: an expiry must lie after it.
function expiryRule(now: number): FieldRule<Expiry> {
  return (value, field, errors) => {
    if (value === null) return { at: null };
    const at = typeof value === 'string' ? parseDateTime(value) : null;
    if (at === null) {
      errors.push(fieldError(field, 'type', `${field} must be null or an RFC 3339 date-time string such as 2027-01-31T12:00:00Z`));
    } else if (at <= now) {
      errors.push(fieldError(field, 'too_small', `${field} must be in the future`));
    } else if (at > LAST_INSTANT) {
      errors.push(fieldError(field, 'too_large', `${field} must be before the year 10000`));
    } else {
      return { at: new Date(at).toISOString() };
    }
    return { at: null };
  };
}

/** Checks a create-key body (docs/api.md, API keys) as of `now`, reporting every field error at once. */
export function validateNewApiKey(body: unknown, now: Date, versions: KeyVersionRules): Validated<NewApiKey> {
  const { apiVersion, ...older }: Fields<Body> = {
    name: { rule: nameRule, required: true },
    scopes: { rule: scopesRule, required: true },
    expiresAt: { rule: expiryRule(now.getTime()), required: false },
    apiVersion: { rule: pinRule(versions.served), required: false },
  };
  const result = versions.pinnable ? validateCreate(body, { ...older, apiVersion }) : validateCreate<Omit<Body, 'apiVersion'>>(body, older);
  if (!result.ok) return result;
  const { name, scopes, expiresAt } = result.value;
  const { apiVersion: pinned }: Partial<Body> = result.value;
  return { ok: true, value: { name, scopes, expiresAt: expiresAt?.at ?? null, apiVersion: pinned ?? versions.defaultVersion } };
}

/**
 * Checks a merge patch of a key: `name` (the rule of a create) and `apiVersion` (a version served), each
 * optional, in every version (a key pinned to an old version is moved by a request of that version).
 */
export function validateApiKeyPatch(body: unknown, served: readonly string[]): Validated<ApiKeyPatch> {
  const fields: Fields<Required<ApiKeyPatch>> = { name: { rule: nameRule, required: false }, apiVersion: { rule: pinRule(served), required: false } };
  const result = validatePatch(body, fields);
  if (!result.ok) return result;
  const patch: ApiKeyPatch = {};
  if (result.value.name !== undefined) patch.name = result.value.name;
  if (result.value.apiVersion !== undefined) patch.apiVersion = result.value.apiVersion;
  return { ok: true, value: patch };
}
