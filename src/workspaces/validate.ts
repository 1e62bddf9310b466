import { type Fields, nameRule, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import type { NewWorkspace, WorkspacePatch } from './model.ts';

// The field rule of docs/api.md, Workspaces (a name, by the same rule as a product's), the one source for
// creates and patches.
const FIELDS: Fields<NewWorkspace> = { name: { rule: nameRule, required: true } };

/** Checks a create-workspace body (docs/api.md, Workspaces), reporting every field error at once. */
export function validateNewWorkspace(body: unknown): Validated<NewWorkspace> {
  return validateCreate(body, FIELDS);
}

/** Checks a workspace merge patch (docs/api.md, Workspaces, and PATCH for the merge rules) by the same rule, reporting every field error at once. */
export function validateWorkspacePatch(body: unknown): Validated<WorkspacePatch> {
  return validatePatch(body, FIELDS);
}
