import { everyResponseHeaders } from './headers.ts';
import { codesByStatus, type ErrorScope, problemResponse } from './problems.ts';
import { EXAMPLES, type JsonObject, ref } from './schemas.ts';

/** What the document says depends on: the settings that add responses or security. */
export interface OpenApiOptions {
  /** SVC_API_TOKEN is set: POSTs need a bearer token and may answer 401. */
  bearerAuth: boolean;
  /** SVC_RATE_LIMIT is on: every operation but readiness may answer 429. */
  rateLimited: boolean;
}

type OperationKind = 'list' | 'read' | 'create' | 'readiness' | 'document';

const KIND_SCOPES: Readonly<Record<OperationKind, readonly ErrorScope[]>> = {
  list: ['list'],
  read: ['read'],
  create: ['create', 'authenticated'],
  readiness: [],
  document: [],
};

// Readiness is exempt from rate limiting (API.md §2), so a balancer's probe is never refused.
const isLimited = (kind: OperationKind, options: OpenApiOptions): boolean => options.rateLimited && kind !== 'readiness';

/** The problem responses of an operation, by status. */
function errorResponses(kind: OperationKind, instance: string, options: OpenApiOptions): JsonObject {
  const scopes = new Set<ErrorScope>([...KIND_SCOPES[kind], 'any_operation']);
  if (isLimited(kind, options)) scopes.add('limited');
  if (!options.bearerAuth) scopes.delete('authenticated');
  const responses: JsonObject = {};
  for (const [status, codes] of codesByStatus(scopes)) responses[String(status)] = problemResponse(status, codes, instance);
  return responses;
}

function jsonContent(schema: JsonObject, example: unknown): JsonObject {
  return { 'application/json': { schema, example } };
}

function operation(kind: OperationKind, instance: string, options: OpenApiOptions, fields: JsonObject): JsonObject {
  const responses = { ...(fields['responses'] as JsonObject), ...errorResponses(kind, instance, options) } as Record<string, JsonObject>;
  if (isLimited(kind, options)) {
    for (const response of Object.values(responses)) {
      response['headers'] = { ...(response['headers'] as JsonObject), RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimitPolicy') };
    }
  }
  const security = kind === 'create' && options.bearerAuth ? [{ bearerAuth: [] }] : [];
  return { ...fields, parameters: [ref('parameters', 'XRequestId'), ...((fields['parameters'] as unknown[]) ?? [])], security, responses };
}

/** One resource of API.md §1 with its three operations. */
interface Resource {
  path: string;
  tag: string;
  singular: string;
  plural: string;
  schema: string;
  example: JsonObject;
}

function collectionPath(resource: Resource, options: OpenApiOptions): JsonObject {
  const { path, tag, singular, plural, schema, example } = resource;
  const title = singular[0]?.toUpperCase() + singular.slice(1);
  const list = operation('list', path, options, {
    operationId: `list${plural}`,
    summary: `List ${tag}, newest first`,
    description: 'Keyset paging: follow the `Link` header with `rel="next"` until it is absent.',
    tags: [tag],
    parameters: [ref('parameters', 'Limit'), ref('parameters', 'Cursor')],
    responses: {
      '200': {
        description: `A page of ${tag}.`,
        headers: { ...everyResponseHeaders(), Link: ref('headers', 'Link') },
        content: jsonContent({ type: 'array', items: ref('schemas', schema) }, [example]),
      },
    },
  });
  const create = operation('create', path, options, {
    operationId: `create${title}`,
    summary: `Create a ${singular}`,
    description: 'Answered 201 only once the write is committed. Every field error is reported at once.',
    tags: [tag],
    parameters: [ref('parameters', 'IdempotencyKey')],
    requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', `New${schema}`) } } },
    responses: {
      '201': {
        description: `The ${singular} was created (or, with \`Idempotent-Replayed: true\`, created before).`,
        headers: { ...everyResponseHeaders(), Location: ref('headers', 'Location'), 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
        content: jsonContent(ref('schemas', schema), example),
      },
    },
  });
  return { get: list, post: create };
}

function itemPath(resource: Resource, options: OpenApiOptions): JsonObject {
  const { path, tag, singular, schema, example } = resource;
  const title = singular[0]?.toUpperCase() + singular.slice(1);
  const read = operation('read', `${path}/${String(example['id'])}`, options, {
    operationId: `get${title}`,
    summary: `Get a ${singular} by id`,
    tags: [tag],
    responses: {
      '200': { description: `The ${singular}.`, headers: everyResponseHeaders(), content: jsonContent(ref('schemas', schema), example) },
    },
  });
  return { parameters: [ref('parameters', 'Id')], get: read };
}

const RESOURCES: readonly Resource[] = [
  { path: '/api/products', tag: 'products', singular: 'product', plural: 'Products', schema: 'Product', example: EXAMPLES.product },
  { path: '/api/workspaces', tag: 'workspaces', singular: 'workspace', plural: 'Workspaces', schema: 'Workspace', example: EXAMPLES.workspace },
];

function readinessPath(options: OpenApiOptions): JsonObject {
  const ready = { status: 1, checks: { database: 1, schema: 1 } };
  const get = operation('readiness', '/api/ping', options, {
    operationId: 'checkReadiness',
    summary: 'Readiness: the database answers and has the schema this build expects',
    description: 'Never cached; exempt from rate limiting.',
    tags: ['operations'],
    responses: { '200': { description: 'Ready.', headers: everyResponseHeaders(), content: jsonContent(ref('schemas', 'Readiness'), ready) } },
  });
  // A 503 is a Readiness body saying which check failed, or a problem document while shutting down.
  const unavailable = get['responses'] as Record<string, JsonObject>;
  const problem = unavailable['503'] as JsonObject;
  const notReady = { status: 2, checks: { database: 1, schema: 2 } };
  unavailable['503'] = {
    ...problem,
    description: 'Not ready (a Readiness body, 2 for the failing check), or shutting down (a problem document).',
    content: { ...jsonContent(ref('schemas', 'Readiness'), notReady), ...(problem['content'] as JsonObject) },
  };
  return { get };
}

function documentPath(options: OpenApiOptions): JsonObject {
  const get = operation('document', '/api/openapi.json', options, {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tags: ['operations'],
    responses: {
      '200': {
        description: 'The OpenAPI document of the running service.',
        headers: everyResponseHeaders(),
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
            },
          },
        },
      },
    },
  });
  return { get };
}

/** `paths`: every operation of API.md §2. */
export function pathItems(options: OpenApiOptions): JsonObject {
  const paths: JsonObject = { '/api/ping': readinessPath(options) };
  for (const resource of RESOURCES) {
    paths[resource.path] = collectionPath(resource, options);
    paths[`${resource.path}/{id}`] = itemPath(resource, options);
  }
  paths['/api/openapi.json'] = documentPath(options);
  return paths;
}
