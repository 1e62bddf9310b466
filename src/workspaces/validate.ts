import { type Fields, nameRule, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import type { NewWorkspace, WorkspacePatch } from './model.ts';

// The field rules of API.md §3, the one source for creates and patches.
const FIELDS: Fields<NewWorkspace> = { name: { rule: nameRule, required: true } };

/** Checks a create-workspace body (API.md §3), reporting every field error at once. */
export function validateNewWorkspace(body: unknown): Validated<NewWorkspace> {
  return validateCreate(body, FIELDS);
}

/** Checks a workspace merge patch (API.md §3a) by the same rules, reporting every field error at once. */
export function validateWorkspacePatch(body: unknown): Validated<WorkspacePatch> {
  return validatePatch(body, FIELDS);
}
