import { ERRORS } from '../http/errors.ts';
import { ReadinessStatus } from '../readiness/model.ts';
import { MAX_NAME_LENGTH } from '../shared/validation.ts';

/** A JSON object of the OpenAPI document. */
export type JsonObject = { [key: string]: unknown };

/** A `$ref` to a component of the document, e.g. `ref('schemas', 'Problem')`. */
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

/** A time the service sets: RFC 3339, UTC, with milliseconds. */
export const createdAt = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  description: 'RFC 3339, UTC, with milliseconds.',
};
/** A name, by the rule every name of the API follows (a key's, and any resource's `name` field). */
export const name = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
  description:
    `Leading and trailing white space is trimmed and the trimmed value stored; 1..${MAX_NAME_LENGTH} ` +
    'Unicode code points after trimming; no control characters (U+0000..U+001F, U+007F..U+009F) or lone surrogates.',
};

/** An object with exactly these members; `required` is left out when empty: a patch schema requires nothing. */
export function closedObject(required: readonly string[], properties: JsonObject, extra: JsonObject = {}): JsonObject {
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties, additionalProperties: false, ...extra };
}

/** The time of every example. */
export const EXAMPLE_TIME = '2026-11-22T09:30:00.000Z';

/**
 * `components.schemas`: readiness and problems; `keys`: with a key's field error codes (the resources' are
 * resource-schemas.ts's); `served`: the versions a 400 `unsupported_api_version` lists, newest first.
 */
export function schemaComponents(keys: boolean, webhooks: boolean, ownCodes: readonly string[], served: readonly string[]): JsonObject {
  return {
    ReadinessStatus: integerEnum('ReadinessStatus: 1 = ready, 2 = unavailable.', ReadinessStatus),
    Readiness: closedObject(['status', 'checks'], {
      status: ref('schemas', 'ReadinessStatus'),
      checks: closedObject(['database', 'schema'], { database: ref('schemas', 'ReadinessStatus'), schema: ref('schemas', 'ReadinessStatus') }),
    }),
    Problem: problemSchema(ownCodes, served),
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

function problemSchema(ownCodes: readonly string[], served: readonly string[]): JsonObject {
  return closedObject(
    ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId'],
    {
      type: { const: 'about:blank' },
      title: { type: 'string', description: 'The reason phrase of `status` as RFC 9110 names it.' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      code: { type: 'string', enum: [...Object.keys(ERRORS), ...ownCodes], description: 'Stable and machine-readable.' },
      detail: { type: 'string', description: 'For people; never a stack, SQL or file path.' },
      instance: { type: 'string', description: 'The request path.' },
      requestId: { type: 'string', description: 'The X-Request-Id of the response.' },
      errors: { type: 'array', minItems: 1, items: { oneOf: [ref('schemas', 'FieldError'), ref('schemas', 'ParameterError')] } },
      supportedVersions: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', enum: served },
        description: 'On a 400 `unsupported_api_version` only: the API versions served, newest first; send one in `Api-Version`.',
      },
    },
    { description: 'An RFC 9457 problem document.' },
  );
}
