import { ERRORS } from '../http/errors.ts';
import { MAX_PRICE_IN_CENTS, ProductStatus } from '../products/model.ts';
import { ReadinessStatus } from '../readiness/model.ts';
import { MAX_NAME_LENGTH } from '../shared/validation.ts';

/** A JSON object of the OpenAPI document. */
export type JsonObject = { [key: string]: unknown };

/** A `$ref` to a component of the document, e.g. `ref('schemas', 'Product')`. */
export function ref(kind: string, name: string): JsonObject {
  return { $ref: `#/components/${kind}/${name}` };
}

// Field error codes (docs/api.md, Errors); the conformance tests provoke every one.
const FIELD_ERROR_CODES = [
  'required',
  'type',
  'not_integer',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'invalid_enum',
  'invalid_characters',
  'unknown_field',
];
// Codes of errors about a query parameter (`limit`, `cursor`, `status`) or a header
// (`Idempotency-Key`, `If-Match`, `If-None-Match`).
const PARAMETER_ERROR_CODES = ['not_integer', 'too_small', 'too_large', 'invalid_cursor', 'invalid_enum', 'invalid'];

/** An integer enum: each value a `const` with its name as `title`, which generators turn into names. */
function integerEnum(description: string, values: Readonly<Record<string, number>>): JsonObject {
  const oneOf = Object.entries(values).map(([name, value]) => ({ const: value, title: name }));
  return { type: 'integer', description, oneOf };
}

const id = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Assigned by the database.' };
/** A time the service sets: RFC 3339, UTC, with milliseconds. */
export const createdAt = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  description: 'RFC 3339, UTC, with milliseconds.',
};
const updatedAt = { ...createdAt, description: 'RFC 3339, UTC, with milliseconds. Equals `createdAt` until the first change, and moves with every change.' };
/** A name, by the rule every name of the API follows (a product's, a workspace's, a key's). */
export const name = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
  description:
    `Leading and trailing white space is trimmed and the trimmed value stored; 1..${MAX_NAME_LENGTH} ` +
    'Unicode code points after trimming; no control characters (U+0000..U+001F, U+007F..U+009F) or lone surrogates.',
};
const priceInCents = { type: 'integer', minimum: 0, maximum: MAX_PRICE_IN_CENTS, description: 'A JSON number with no fraction; strings are not coerced.' };

/** An object with exactly these members; `required` is left out when empty: a patch schema requires nothing. */
export function closedObject(required: readonly string[], properties: JsonObject, extra: JsonObject = {}): JsonObject {
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties, additionalProperties: false, ...extra };
}

// Said in words, not with `default`: openapi-typescript 7 (defaultNonNullable, on unless turned off)
// types a member that has a default as present, so a typed client could not leave `status` out.
const newProductStatus = `Optional; ${ProductStatus.active} (active) when omitted. Always present in the Product answered.`;

/** The time of every example. */
export const EXAMPLE_TIME = '2026-11-22T09:30:00.000Z';
const at = EXAMPLE_TIME;
const product = { id: 17, name: 'Desk lamp', priceInCents: 1999, status: ProductStatus.active, createdAt: at, updatedAt: at };
const workspace = { id: 3, name: 'Acme', createdAt: at, updatedAt: at };

/** Examples shared by schemas and responses. */
export const EXAMPLES = { product, workspace } as const;

// What every patch schema says in words: JSON Merge Patch (RFC 7396) with the create rules and no removal.
const patchRules =
  'A JSON Merge Patch (RFC 7396): each member present replaces that field and is checked by the same rule as in a create; ' +
  'members left out keep their values. `null` is a `type` error for every member: no field can be removed. ' +
  'Any other member is `unknown_field`. Every field error is reported at once. ' +
  '`{}`, or a patch that changes no value, is valid and changes nothing (same `updatedAt`, same `ETag`).';
const archivedRule =
  'An archived product is read-only except for its `status`: a patch whose result is an archived product with another ' +
  '`name` or `priceInCents` is 409 `product_archived`. A patch may archive, unarchive, or unarchive and edit in one step.';

/** `components.schemas`: every representation and request body of products, workspaces and readiness, and problems; `keys`: with a key's field error codes. */
export function schemaComponents(keys: boolean, webhooks = false): JsonObject {
  const unknownFields = 'Any other member is reported as `unknown_field`.';
  const status = ref('schemas', 'ProductStatus');
  return {
    ProductStatus: integerEnum('ProductStatus: 1 = active, 2 = archived.', ProductStatus),
    ReadinessStatus: integerEnum('ReadinessStatus: 1 = ready, 2 = unavailable.', ReadinessStatus),
    Product: closedObject(
      ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt'],
      { id, name, priceInCents, status, createdAt, updatedAt },
      { examples: [product] },
    ),
    NewProduct: closedObject(
      ['name', 'priceInCents'],
      { name, priceInCents, status: { ...status, description: newProductStatus } },
      {
        description: unknownFields,
        examples: [{ name: product.name, priceInCents: product.priceInCents }, { name: 'Chair', priceInCents: 4999, status: ProductStatus.archived }],
      },
    ),
    // No member has a `default`, and none is required: `{}` is a valid patch.
    ProductPatch: closedObject([], { name, priceInCents, status }, {
      description: `${patchRules} ${archivedRule}`,
      examples: [{ priceInCents: 2499 }, { status: ProductStatus.archived }, { name: 'Brass lamp', status: ProductStatus.active }],
    }),
    Workspace: closedObject(['id', 'name', 'createdAt', 'updatedAt'], { id, name, createdAt, updatedAt }, { examples: [workspace] }),
    NewWorkspace: closedObject(['name'], { name }, { description: unknownFields, examples: [{ name: workspace.name }] }),
    WorkspacePatch: closedObject([], { name }, { description: patchRules, examples: [{ name: 'Acme Europe' }] }),
    Readiness: closedObject(['status', 'checks'], {
      status: ref('schemas', 'ReadinessStatus'),
      checks: closedObject(['database', 'schema'], { database: ref('schemas', 'ReadinessStatus'), schema: ref('schemas', 'ReadinessStatus') }),
    }),
    Problem: problemSchema(),
    FieldError: closedObject(['pointer', 'code', 'detail'], {
      pointer: { type: 'string', description: 'JSON Pointer (RFC 6901) to the member; "" for the whole body.' },
      // `duplicate`: a scope listed twice in a new key's `scopes`, an event type twice in a webhook's `events`;
      // `invalid_url`, `forbidden_target`: a webhook's `url`.
      code: {
        type: 'string',
        enum: [...FIELD_ERROR_CODES, ...(keys || webhooks ? ['duplicate'] : []), ...(webhooks ? ['invalid_url', 'forbidden_target'] : [])],
      },
      detail: { type: 'string' },
    }),
    ParameterError: closedObject(['parameter', 'code', 'detail'], {
      parameter: { type: 'string', description: 'The query parameter or header at fault.', examples: ['limit', 'status', 'If-Match'] },
      code: { type: 'string', enum: PARAMETER_ERROR_CODES },
      detail: { type: 'string' },
    }),
  };
}

function problemSchema(): JsonObject {
  return closedObject(
    ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId'],
    {
      type: { const: 'about:blank' },
      title: { type: 'string', description: 'The reason phrase of `status` as RFC 9110 names it.' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      code: { type: 'string', enum: Object.keys(ERRORS), description: 'Stable and machine-readable.' },
      detail: { type: 'string', description: 'For people; never a stack, SQL or file path.' },
      instance: { type: 'string', description: 'The request path.' },
      requestId: { type: 'string', description: 'The X-Request-Id of the response.' },
      errors: { type: 'array', minItems: 1, items: { oneOf: [ref('schemas', 'FieldError'), ref('schemas', 'ParameterError')] } },
    },
    { description: 'An RFC 9457 problem document.' },
  );
}
