import type { Resource } from '../resources/resource.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, ref } from './schemas.ts';

const id = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Assigned by the database.' };
const updatedAt = { ...createdAt, description: 'RFC 3339, UTC, with milliseconds. Equals `createdAt` until the first change, and moves with every change.' };

// What every patch schema says in words: JSON Merge Patch (RFC 7396) with the create rules and no removal.
const PATCH_RULES =
  'A JSON Merge Patch (RFC 7396): each member present replaces that field and is checked by the same rule as in a create; ' +
  'members left out keep their values. `null` is a `type` error for every member: no field can be removed. ' +
  'Any other member is `unknown_field`. Every field error is reported at once. ' +
  '`{}`, or a patch that changes no value, is valid and changes nothing (same `updatedAt`, same `ETag`).';

/** The example representation of `resource`: its example id, each field's example, the example time. */
export function exampleOf(resource: Resource): JsonObject {
  const fields = Object.fromEntries(Object.entries(resource.fields).map(([name, field]) => [name, field.example]));
  return { id: resource.exampleId, ...fields, createdAt: EXAMPLE_TIME, updatedAt: EXAMPLE_TIME };
}

// A create's example: the fields a create must send.
function newExample(resource: Resource): JsonObject {
  return Object.fromEntries(Object.entries(resource.fields).filter(([, field]) => field.default === undefined).map(([name, field]) => [name, field.example]));
}

/** `components.schemas` of `resource`: its representation, create body and merge patch, and the schemas its fields name (enums). */
export function resourceSchemas(resource: Resource): JsonObject {
  const fields = Object.entries(resource.fields);
  const properties = Object.fromEntries(fields.map(([name, field]) => [name, field.schema]));
  const patchProperties = Object.fromEntries(fields.map(([name, field]) => [name, field.patchSchema]));
  const required = fields.filter(([, field]) => field.required && field.default === undefined).map(([name]) => name);
  const [firstField] = fields;
  const patchExample = firstField === undefined ? {} : { [firstField[0]]: firstField[1].example };
  const rules = resource.rules.map((rule) => rule.says).join(' ');
  return {
    ...Object.assign({}, ...fields.map(([, field]) => field.components)),
    [resource.title]: closedObject(['id', ...fields.map(([name]) => name), 'createdAt', 'updatedAt'], { id, ...properties, createdAt, updatedAt }, { examples: [exampleOf(resource)] }),
    [`New${resource.title}`]: closedObject(required, properties, { description: 'Any other member is reported as `unknown_field`.', examples: [newExample(resource)] }),
    // No member has a `default`, and none is required: `{}` is a valid patch.
    [`${resource.title}Patch`]: closedObject([], patchProperties, { description: rules === '' ? PATCH_RULES : `${PATCH_RULES} ${rules}`, examples: [patchExample] }),
  };
}

/** The name of the query parameter that filters `resource`'s list by `field` (`OrderStatusFilter`). */
export function filterParameterName(resource: Resource, field: string): string {
  return `${resource.title}${field[0]?.toUpperCase()}${field.slice(1)}Filter`;
}

/** `components.parameters` of `resource`'s list filters: one per integer enum field. */
export function filterParameters(resource: Resource): JsonObject {
  const parameters: JsonObject = {};
  for (const field of resource.filters) {
    const schema = resource.fields[field]?.schema ?? {};
    parameters[filterParameterName(resource, field)] = {
      name: field,
      in: 'query',
      description:
        `Lists only the ${resource.plural} of this ${field}; anything else is 400 \`invalid_query\`. The filter is bound into the cursor: ` +
        'the `next` link carries it on, and a cursor presented under another filter (or none) is 400 `invalid_query`.',
      schema: ref('schemas', String(schema['$ref'] ?? '').replace('#/components/schemas/', '')),
    };
  }
  return parameters;
}
