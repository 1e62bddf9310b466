import type { FieldError } from '../http/errors.ts';
import { isJsonObject, NOT_AN_OBJECT, rejectUnknownFields, validateName, type Validated } from '../shared/validation.ts';
import type { NewWorkspace } from './model.ts';

const FIELDS = ['name'] as const;

/** Checks a create-workspace body (API.md §3), reporting every field error at once. */
export function validateNewWorkspace(body: unknown): Validated<NewWorkspace> {
  if (!isJsonObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const name = validateName(body, 'name', errors);
  rejectUnknownFields(body, FIELDS, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { name } };
}
