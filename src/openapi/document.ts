import { readFileSync } from 'node:fs';
import { type ErrorCode, ERRORS, reasonPhrase } from '../http/errors.ts';
import { eventHeaders, eventParameters, eventSchemas, eventTypeNames } from './event-paths.ts';
import { headerComponents, parameterComponents } from './headers.ts';
import { keySchemas } from './key-schemas.ts';
import { webhookDeliveries } from './webhook-paths.ts';
import { webhookSchemas } from './webhook-schemas.ts';
import { type OpenApiOptions, pathItems } from './operations.ts';
import { accessOf } from './options.ts';
import { ERROR_SCOPES, type ErrorScope, exampleProblem, type OperationKind } from './problems.ts';
import { filterParameters, resourceSchemas } from './resource-schemas.ts';
import { type JsonObject, schemaComponents } from './schemas.ts';
import type { Resource } from '../resources/resource.ts';
import { credentialsParagraph, securitySchemes } from './security.ts';
import { versionSchemas } from './version-schemas.ts';

export { type DocumentedAuth, type OpenApiOptions, openApiOptionsFor, type ServedRoute } from './options.ts';

// The same relative path from src/openapi and dist/openapi.
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  license: string;
};

// The `where` column of the error catalogue, in words.
const KIND_TEXT: Readonly<Record<OperationKind, string>> = {
  readiness: 'readiness',
  document: 'this document, its page and the list of versions',
  list: 'lists',
  read: 'reads by id',
  create: 'creates',
  change: 'changes',
  remove: 'deletes',
  log: 'delivery logs',
  action: 'retries of a delivery',
};
const WHEN_TEXT = {
  rate_limit: 'when rate limiting is on',
  credential: 'where a credential is checked: POST, PATCH and DELETE when SVC_API_TOKEN is set; with SVC_AUTH keys or jwt, every operation but the open ones',
  scope: 'with SVC_AUTH keys or jwt, where the credential lacks the scope the operation needs',
} as const;

function kindsText(on: readonly OperationKind[]): string {
  const missing = (Object.keys(KIND_TEXT) as OperationKind[]).filter((kind) => !on.includes(kind));
  const [only] = missing;
  if (missing.length === 0) return 'any operation';
  if (missing.length === 1 && only !== undefined) return `every operation but ${KIND_TEXT[only]}`;
  return on.map((kind) => KIND_TEXT[kind]).join(', ');
}

function whereText(scope: ErrorScope): string {
  if (scope.on === 'any_request') return 'any request, before routing';
  if (scope.when === 'credential' || scope.when === 'scope') return WHEN_TEXT[scope.when];
  const of = scope.resources === 'described' ? ' of the resources' : scope.resources === undefined ? '' : ` of ${scope.resources.join(' and ')}`;
  const where = `${kindsText(scope.on)}${of}`;
  return scope.when === undefined ? where : `${where}, ${WHEN_TEXT[scope.when]}`;
}

function errorCatalogue(resources: readonly Resource[]): string {
  const rows: { code: string; status: number; detail: string; where: string }[] = (Object.keys(ERRORS) as ErrorCode[]).map((code) => ({ code, ...ERRORS[code], where: whereText(ERROR_SCOPES[code]) }));
  for (const resource of resources) {
    for (const { refusal } of resource.rules) rows.push({ ...refusal, where: `changes of ${resource.plural}` });
    for (const { refusal } of resource.checks) rows.push({ ...refusal, where: `creates and changes of ${resource.plural}` });
  }
  const lines = rows.sort((a, b) => a.status - b.status).map(({ code, status, detail, where }) => `| ${status} ${reasonPhrase(status)} | \`${code}\` | ${where} | ${detail} |`);
  return ['| status | code | where | detail |', '|---|---|---|---|', ...lines].join('\n');
}

// "orders, invoices and refunds", as many as are served.
function listed(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

// Which version this document describes, and how a request gets another.
function versionsParagraph({ versions }: OpenApiOptions): string {
  const { shown, served, defaultVersion } = versions;
  const sunset = shown.sunsetAt === null ? '' : ` It is going away: from ${new Date(shown.sunsetAt).toISOString()} on, a request in it is 400 \`unsupported_api_version\`.`;
  const others = served.filter((view) => view !== shown).map((view) => `\`${view.id}\``);
  return (
    `**API version ${shown.id}**: ${shown.summary} Every shape here is the one served in ${shown.id}: send \`Api-Version: ${shown.id}\` ` +
    `(without it a request gets its API key's pinned version, else SVC_API_VERSION, here ${defaultVersion}). Every answer under /api ` +
    `says the version it was made in (\`Api-Version\`, with \`Vary: Api-Version\`).${sunset}` +
    (others.length === 0 ? '' : ` Also served: ${listed(others)}, each described by its own document (\`?version=\`); \`GET /api/versions\` lists them.`)
  );
}

function description(options: OpenApiOptions): string {
  const notAllowed = JSON.stringify(exampleProblem('method_not_allowed', { instance: '/api/ping' }));
  return [
    `A JSON API for ${listed(options.resources.map((resource) => resource.plural))} on node:http and node:sqlite. Bodies are JSON, UTF-8; integer enums are integers on the wire.`,
    '',
    versionsParagraph(options),
    '',
    credentialsParagraph(options.auth),
    '',
    '**HEAD** is answered for every GET operation below, with the same status and headers and no body; it is not listed separately.',
    '',
    '**Any request** can also meet these responses, which belong to no operation: an unknown path is 404 `not_found`; ' +
      'a known path with another method is 405 `method_not_allowed` with an `Allow` header listing the methods ' +
      `(for example \`Allow: GET, HEAD\` and \`${notAllowed}\`); a request node:http cannot parse, ` +
      'or that arrives too slowly, is answered with a problem document too (400, 408, 414, 431) and the connection closed. ' +
      'A request target in absolute form (`GET http://host/api/ping HTTP/1.1`) is served like its path; another scheme than ' +
      'http or https, user information in it, or `*` with any method but OPTIONS is 400 `bad_request`; `OPTIONS *` is 204 with ' +
      'an `Allow` header listing every method served.',
    '',
    '**Changes and deletes** are safe against lost updates: every response with one representation (GET and HEAD by id, ' +
      'POST 201, PATCH 200) has a strong `ETag`; send it back in `If-Match` on PATCH or DELETE and a change made meanwhile gets 412 ' +
      '`precondition_failed` instead of being overwritten. Without `If-Match` the last write wins. Every method of one resource ' +
      'evaluates `If-Match` (strong comparison), then `If-None-Match` (weak comparison), as RFC 9110 §13.2.2 orders them: a failing ' +
      '`If-Match` is 412 on GET and HEAD too; a matching `If-None-Match` is 304 on GET and HEAD, and 412 on PATCH and DELETE. ' +
      '`If-Modified-Since` and `If-Unmodified-Since` are ignored: no `Last-Modified` is sent.',
    '',
    '**Request bodies** (POST, PATCH) have no content coding: a `Content-Encoding` other than `identity` is 415 ' +
      '`unsupported_media_type` with `Accept-Encoding: identity`, judged before the media type.',
    '',
    'Every response, errors included, carries `X-Request-Id` and the security headers listed on each response. ' +
      'Every error is an RFC 9457 problem document (`application/problem+json`) whose `title` is the RFC 9110 reason phrase.',
    '',
    errorCatalogue(options.resources),
  ].join('\n');
}

/** Whether the webhook endpoints are served, and so their schemas and the deliveries documented. */
function servesWebhooks(options: OpenApiOptions): boolean {
  return options.routes.some((route) => route.pattern === '/api/webhooks');
}

/** Whether the keys endpoints are served (SVC_AUTH=keys), and so documented with what they need. */
function servesKeys(options: OpenApiOptions): boolean {
  return options.routes.some((route) => route.pattern === '/api/keys' || route.pattern.startsWith('/api/keys/'));
}

function components(options: OpenApiOptions): JsonObject {
  const keys = servesKeys(options);
  const { resources } = options;
  const ownCodes = resources.flatMap((resource) => [...resource.rules, ...resource.checks].map((rule) => rule.refusal.code));
  const parts: JsonObject = {
    schemas: {
      ...Object.assign({}, ...resources.map(resourceSchemas)),
      ...schemaComponents(keys, servesWebhooks(options), ownCodes, options.versions.served.map((view) => view.id)),
      ...(keys ? keySchemas(options, accessOf(options, 'PATCH', '/api/keys/{id}') !== undefined) : {}),
      ...eventSchemas(resources),
      ...(servesWebhooks(options) ? webhookSchemas(eventTypeNames(resources)[0] ?? '', options) : {}),
      ...versionSchemas(options),
    },
    parameters: { ...parameterComponents(options, keys), ...Object.assign({}, ...resources.map(filterParameters)), ...eventParameters(resources) },
    headers: { ...headerComponents(options, keys), ...eventHeaders(options) },
  };
  const schemes = securitySchemes(options.auth);
  if (schemes !== undefined) parts['securitySchemes'] = schemes;
  return parts;
}

function tags(options: OpenApiOptions): JsonObject[] {
  return [
    ...options.resources.map((resource) => ({ name: resource.plural, description: resource.summary })),
    ...(servesKeys(options) ? [{ name: 'keys', description: 'API keys: who may call, and with which scopes.' }] : []),
    { name: 'events', description: 'What changed: every committed change of a resource, as a feed to follow.' },
    ...(servesWebhooks(options) ? [{ name: 'webhooks', description: 'Webhooks: events POSTed to a URL, signed as Standard Webhooks; their delivery log.' }] : []),
    { name: 'operations', description: 'Readiness, this document and its page, and the API versions served.' },
  ];
}

// The options with each resource as the document's version shows it: its fields in that version (the
// validators of its requests derive from the same), so every schema and example of it follows.
function inVersion(options: OpenApiOptions): OpenApiOptions {
  const { shown } = options.versions;
  const resources = options.resources.map((resource) => {
    const fields = shown.fieldsOf(resource);
    return { ...resource, fields, filters: resource.filters.filter((name) => Object.hasOwn(fields, name)) };
  });
  return { ...options, resources };
}

/** The OpenAPI 3.1 document of the service as configured by `options`, in the API version it names: `info.version` is that version. */
export function buildOpenApiDocument(given: OpenApiOptions): JsonObject {
  const options = inVersion(given);
  return {
    openapi: '3.1.1',
    info: {
      title: PACKAGE.name,
      version: options.versions.shown.id,
      summary: `${listed([...options.resources.map((resource) => resource.plural), 'readiness'])} over JSON.`.replace(/^./, (first) => first.toUpperCase()),
      description: description(options),
      license: { name: PACKAGE.license, identifier: PACKAGE.license },
    },
    // Relative: the paths resolve against wherever the document was fetched from.
    servers: [{ url: '/', description: 'The service that served this document.' }],
    tags: tags(options),
    paths: pathItems(options),
    ...(servesWebhooks(options) ? { webhooks: webhookDeliveries(options) } : {}),
    components: components(options),
  };
}
