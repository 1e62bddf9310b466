// JSON schemas of the Fastify peer: validation of input, fast serialization of output.
const STATUS = { type: 'integer', enum: [1, 2] };

export const pingResponse = {
  type: 'object',
  properties: {
    status: STATUS,
    checks: { type: 'object', properties: { database: STATUS, schema: STATUS } },
  },
};

export const productSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    priceInCents: { type: 'integer' },
    status: STATUS,
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

export const productList = { type: 'array', items: productSchema };

export const listQuerySchema = {
  type: 'object',
  properties: {
    // Strings: coercion is off (the body rules forbid it), so the handler turns limit into a number.
    limit: { type: 'string', pattern: '^[0-9]{1,3}$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,80}$' },
  },
};

// The service's rules (README: POST /api/products); the trimmed length is checked in the handler.
export const createBodySchema = {
  type: 'object',
  required: ['name', 'priceInCents'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$' },
    priceInCents: { type: 'integer', minimum: 0, maximum: 2147483647 },
    status: STATUS,
  },
};
