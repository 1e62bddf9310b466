import { type Fields, nameRule, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import type { NewWorkspace, WorkspacePatch } from './model.ts';

// The field rules of README: POST /api/products, the one source for creates and patches.
const FIELDS: Fields<NewWorkspace> = { name: { rule: nameRule, required: true } };

/** Checks a create-workspace body (README: POST /api/products), reporting every field error at once. */
export function validateNewWorkspace(body: unknown): Validated<NewWorkspace> {
  return validateCreate(body, FIELDS);
}

/** Checks a workspace merge patch (README: PATCH) by the same rules, reporting every field error at once. */
export function validateWorkspacePatch(body: unknown): Validated<WorkspacePatch> {
  return validatePatch(body, FIELDS);
}
