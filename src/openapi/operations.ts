import type { Access } from '../http/router.ts';
import { eventOperations } from './event-paths.ts';
import { everyResponseHeaders } from './headers.ts';
import { keyOperations } from './key-paths.ts';
import { webhookOperations } from './webhook-paths.ts';
import { type DocumentedOperation, jsonContent, type OpenApiOptions, operation, taggedHeaders } from './operation.ts';
import { accessOf } from './options.ts';
import { exampleOf, filterParameterName } from './resource-schemas.ts';
import { type JsonObject, ref } from './schemas.ts';
import { listContent } from './lists.ts';
import { docsPagePath, documentPath, readinessPath, versionsPath } from './service-paths.ts';
import type { Resource as Described } from '../resources/resource.ts';

export type { DocumentedOperation, OpenApiOptions, OperationBuilder } from './operation.ts';

/** One resource of the API with its five operations, as its description gives it. */
interface Resource {
  path: string;
  tag: string;
  singular: string;
  plural: string;
  /** The representation's schema; `New…` and `…Patch` are its create and patch bodies. */
  schema: string;
  example: JsonObject;
  /** Query parameters that filter its list, beside `limit` and `cursor`. */
  filters: readonly JsonObject[];
  described: Described;
}

function documented(resource: Described): Resource {
  return {
    path: resource.path,
    tag: resource.plural,
    singular: resource.singular,
    plural: resource.plural[0]?.toUpperCase() + resource.plural.slice(1),
    schema: resource.title,
    example: exampleOf(resource),
    filters: resource.filters.map((field) => ref('parameters', filterParameterName(resource, field))),
    described: resource,
  };
}

// Every operation on one resource evaluates both preconditions (RFC 9110 §13.2.2).
const PRECONDITIONS = [ref('parameters', 'IfMatch'), ref('parameters', 'IfNoneMatch')];
// What every request body may not have: a content coding (RFC 9110 §15.5.16).
const NO_CODING = 'It must have no content coding: a `Content-Encoding` other than `identity` is 415 with `Accept-Encoding: identity`.';

const titleOf = (resource: Resource): string => resource.singular[0]?.toUpperCase() + resource.singular.slice(1);

function listOperation(resource: Resource, options: OpenApiOptions, access: Access): JsonObject {
  const { path, tag, plural, schema, example, filters } = resource;
  return operation({ kind: 'list', resource: tag, access, instance: path, described: resource.described }, options, {
    operationId: `list${plural}`,
    summary: `List ${tag}, newest first`,
    description: 'Keyset paging: follow the `Link` header with `rel="next"` until it is absent; it carries `limit` and any filter on.',
    tags: [tag],
    parameters: [ref('parameters', 'Limit'), ref('parameters', 'Cursor'), ...filters],
    responses: {
      '200': {
        description: `A page of ${tag}.`,
        headers: { ...everyResponseHeaders(), Link: ref('headers', 'Link') },
        content: listContent(options, ref('schemas', schema), [example]),
      },
    },
  });
}

function createOperation(resource: Resource, options: OpenApiOptions, access: Access): JsonObject {
  const { path, tag, singular, schema, example } = resource;
  return operation({ kind: 'create', resource: tag, access, instance: path, described: resource.described }, options, {
    operationId: `create${titleOf(resource)}`,
    summary: `Create a ${singular}`,
    description: 'Answered 201 only once the write is committed. Every field error is reported at once.',
    tags: [tag],
    parameters: [ref('parameters', 'IdempotencyKey')],
    requestBody: {
      required: true,
      description: `Sent as \`application/json\` (a \`charset\` parameter may only be \`utf-8\`); any other media type is 415. ${NO_CODING}`,
      content: { 'application/json': { schema: ref('schemas', `New${schema}`) } },
    },
    responses: {
      '201': {
        description: `The ${singular} was created (or, with \`Idempotent-Replayed: true\`, created before).`,
        headers: { ...taggedHeaders(), Location: ref('headers', 'Location'), 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
        content: jsonContent(ref('schemas', schema), example),
      },
    },
  });
}

function readOperation(resource: Resource, options: OpenApiOptions, access: Access): JsonObject {
  const { tag, singular, schema, example } = resource;
  return operation({ kind: 'read', resource: tag, access, instance: itemInstance(resource), described: resource.described }, options, {
    operationId: `get${titleOf(resource)}`,
    summary: `Get a ${singular} by id`,
    description:
      'The `ETag` identifies this version; sent back in `If-None-Match`, it gets 304 and no body while nothing changed. ' +
      'An `If-Match` that names no current tag is 412.',
    tags: [tag],
    parameters: PRECONDITIONS,
    responses: {
      '200': { description: `The ${singular}.`, headers: taggedHeaders(), content: jsonContent(ref('schemas', schema), example) },
      '304': { description: `Not Modified: \`If-None-Match\` matches the ${singular}'s current entity tag. No body.`, headers: taggedHeaders() },
    },
  });
}

function changeOperation(resource: Resource, options: OpenApiOptions, access: Access): JsonObject {
  const { tag, singular, schema, example } = resource;
  const patch = { schema: ref('schemas', `${schema}Patch`) };
  return operation({ kind: 'change', resource: tag, access, instance: itemInstance(resource), described: resource.described }, options, {
    operationId: `update${titleOf(resource)}`,
    summary: `Change a ${singular} (JSON Merge Patch)`,
    description:
      'Answered 200 only once the change is committed; `updatedAt` and the `ETag` move when a value changed. ' +
      'With `If-Match`, a lost update is 412 instead; with `If-None-Match`, a change to a version it names is 412. ' +
      'Safe to retry as it is: it takes no Idempotency-Key.',
    tags: [tag],
    parameters: PRECONDITIONS,
    requestBody: {
      required: true,
      description: `A JSON Merge Patch, sent as \`application/merge-patch+json\` or \`application/json\` (the same meaning); any other media type is 415. ${NO_CODING}`,
      content: { 'application/merge-patch+json': patch, 'application/json': patch },
    },
    responses: {
      '200': { description: `The ${singular} as it now is.`, headers: taggedHeaders(), content: jsonContent(ref('schemas', schema), example) },
    },
  });
}

function removeOperation(resource: Resource, options: OpenApiOptions, access: Access): JsonObject {
  const { tag, singular } = resource;
  return operation({ kind: 'remove', resource: tag, access, instance: itemInstance(resource), described: resource.described }, options, {
    operationId: `delete${titleOf(resource)}`,
    summary: `Delete a ${singular}`,
    description:
      `Answered 204 only once committed. The ${singular} then answers 404 and is absent from every list, a second DELETE is 404, ` +
      'and its id is never given to another. Safe to retry as it is. `If-Match` and `If-None-Match` are evaluated as on a change.',
    tags: [tag],
    parameters: PRECONDITIONS,
    responses: { '204': { description: `The ${singular} was deleted. No body.`, headers: everyResponseHeaders() } },
  });
}

// The path of the example item, in the examples of its operations.
function itemInstance(resource: Resource): string {
  return `${resource.path}/${String(resource.example['id'])}`;
}

// The five operations of a resource.
function resourceOperations(resource: Resource): DocumentedOperation[] {
  const item = `${resource.path}/{id}`;
  const pathParameters = [ref('parameters', 'Id')];
  return [
    { method: 'GET', pattern: resource.path, build: (options, access) => listOperation(resource, options, access) },
    { method: 'POST', pattern: resource.path, build: (options, access) => createOperation(resource, options, access) },
    { method: 'GET', pattern: item, pathParameters, build: (options, access) => readOperation(resource, options, access) },
    { method: 'PATCH', pattern: item, pathParameters, build: (options, access) => changeOperation(resource, options, access) },
    { method: 'DELETE', pattern: item, pathParameters, build: (options, access) => removeOperation(resource, options, access) },
  ];
}

// Every operation the document can describe for `resources`, in the order it lists them.
const documentedOperations = (resources: readonly Described[]): readonly DocumentedOperation[] => [
  { method: 'GET', pattern: '/api/ping', build: readinessPath },
  ...resources.map(documented).flatMap(resourceOperations),
  ...keyOperations(),
  ...eventOperations(),
  ...webhookOperations(),
  { method: 'GET', pattern: '/api/versions', build: versionsPath },
  { method: 'GET', pattern: '/api/openapi.json', build: documentPath },
  { method: 'GET', pattern: '/api/docs', build: docsPagePath },
];

/** `paths`: every operation of DOCUMENTED whose route the service serves, with that route's access. */
export function pathItems(options: OpenApiOptions): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const { method, pattern, build, pathParameters } of documentedOperations(options.resources)) {
    const access = accessOf(options, method, pattern);
    if (access === undefined) continue;
    const item = paths[pattern] ?? (pathParameters === undefined ? {} : { parameters: pathParameters });
    paths[pattern] = { ...item, [method.toLowerCase()]: build(options, access) };
  }
  return paths;
}
