import { type FieldSpec, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import type { Resource } from './resource.ts';

type Body = Readonly<Record<string, unknown>>;

/** A resource's two validators, both from its field table: a create body and a merge patch. */
export interface Validators {
  validateNew(body: unknown): Validated<Body>;
  validatePatch(body: unknown): Validated<Body>;
}

/**
 * The validators of `resource` (docs/api.md, POST and PATCH): the same rules for both, every field
 * error at once, any other member `unknown_field`; a field with a default may be left out of a create.
 */
export function validatorsOf(resource: Pick<Resource, 'fields'>): Validators {
  const specs: Record<string, FieldSpec<unknown>> = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    specs[name] = { rule: field.rule, required: field.required && field.default === undefined, patchRule: field.patchRule };
  }
  return {
    validateNew: (body) => validateCreate<Body>(body, specs as never),
    validatePatch: (body) => validatePatch<Body>(body, specs as never),
  };
}
