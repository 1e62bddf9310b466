import type { Access } from '../http/router.ts';
import { everyResponseHeaders } from './headers.ts';
import { jsonContent, type OpenApiOptions, operation } from './operation.ts';
import { type JsonObject, ref } from './schemas.ts';
import { versionsExample } from './version-schemas.ts';

/** GET /api/ping: readiness, 200 or 503 with the same shape. */
export function readinessPath(options: OpenApiOptions, access: Access): JsonObject {
  const ready = { status: 1, checks: { database: 1, schema: 1 } };
  const get = operation({ kind: 'readiness', access, instance: '/api/ping' }, options, {
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
  return get;
}

/** GET /api/openapi.json: this document. */
export function documentPath(options: OpenApiOptions, access: Access): JsonObject {
  return operation({ kind: 'document', access, instance: '/api/openapi.json' }, options, {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    description: 'In the API version the request names (`?version=`, else `Api-Version`), else in its API key\'s or SVC_API_VERSION: every shape in it is the one served in that version, and `info.version` names it.',
    tags: ['operations'],
    parameters: [ref('parameters', 'DocumentVersion')],
    responses: {
      '200': {
        description: 'The OpenAPI document of the running service, in one API version.',
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
}

// The page brings its own Content-Security-Policy (hashes of its one script and style); every other
// header is the one every response carries.
function pageHeaders(): JsonObject {
  const { 'Content-Security-Policy': _json, ...others } = everyResponseHeaders();
  const csp = {
    description: "The page's own policy: nothing from anywhere else; only its one inline script and style, by hash; requests only to this service.",
    required: true,
    schema: { type: 'string', pattern: "^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+={0,2}'; style-src 'sha256-[A-Za-z0-9+/]+={0,2}';" },
  };
  return { ...others, 'Content-Security-Policy': csp };
}

/** GET /api/docs: the API's own page, made from this document. */
export function docsPagePath(options: OpenApiOptions, access: Access): JsonObject {
  return operation({ kind: 'document', access, instance: '/api/docs' }, options, {
    operationId: 'getDocsPage',
    summary: 'This API as a page to read and try, made from this document',
    description:
      'One self-contained HTML page: every operation with its parameters, bodies, examples, statuses and error codes, readable without ' +
      'JavaScript; with it, a form per operation sends a real request to this service (with a key or token typed into the page and kept ' +
      'only there) and shows the status, headers and body. It shows one API version (chosen as the document\'s is), sends it in ' +
      '`Api-Version` from every form, and lists every version served, newest first, in its Versions section (`#versions`), each linked.',
    tags: ['operations'],
    parameters: [ref('parameters', 'DocumentVersion')],
    responses: {
      '200': {
        description: 'The page.',
        headers: pageHeaders(),
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  });
}

/** GET /api/versions: the versions served, open like readiness and the same in every version. */
export function versionsPath(options: OpenApiOptions, access: Access): JsonObject {
  return operation({ kind: 'document', access, instance: '/api/versions' }, options, {
    operationId: 'listApiVersions',
    summary: 'The API versions served, newest first',
    description:
      'Each with what it changed and its sunset, and the default (SVC_API_VERSION). Never refused for a key\'s or the default version ' +
      'past its sunset (it then answers in the newest), so a client can always learn what to send.',
    tags: ['operations'],
    responses: { '200': { description: 'The versions served.', headers: everyResponseHeaders(), content: jsonContent(ref('schemas', 'Versions'), versionsExample(options)) } },
  });
}
