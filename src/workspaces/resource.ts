import { textField } from '../resources/fields.ts';
import { describeResource } from '../resources/resource.ts';

/** Workspaces: a name. */
export const workspaces = describeResource({
  plural: 'workspaces',
  singular: 'workspace',
  summary: 'Workspaces: a name.',
  fields: { name: textField({ min: 1, max: 200, example: 'Acme' }) },
  events: { created: 4, updated: 5, deleted: 6 },
  exampleId: 3,
});
