import type { Access } from '../http/router.ts';
import { everyResponseHeaders } from './headers.ts';
import { EXAMPLE_KEY_ID, keyExamples } from './key-schemas.ts';
import { listContent } from './lists.ts';
import { type DocumentedOperation, jsonContent, type OpenApiOptions, operation, taggedHeaders } from './operation.ts';
import type { OperationPlace } from './problems.ts';
import { type JsonObject, ref } from './schemas.ts';

const PATH = '/api/keys';
const ITEM = `${PATH}/{id}`;
const PRECONDITIONS = [ref('parameters', 'IfMatch'), ref('parameters', 'IfNoneMatch')];
const apiKey = ref('schemas', 'ApiKey');

function place(kind: OperationPlace['kind'], access: Access): OperationPlace {
  return { kind, resource: 'keys', access, instance: kind === 'list' || kind === 'create' ? PATH : `${PATH}/${EXAMPLE_KEY_ID}` };
}

function listKeys(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('list', access), options, {
    operationId: 'listKeys',
    summary: 'List API keys, newest first',
    description:
      'Every key ever made, revoked and expired ones included (see `revokedAt` and `expiresAt`); never a secret. Keyset paging: ' +
      'follow the `Link` header with `rel="next"` until it is absent.',
    tags: ['keys'],
    parameters: [ref('parameters', 'Limit'), ref('parameters', 'Cursor')],
    responses: {
      '200': {
        description: 'A page of keys.',
        headers: { ...everyResponseHeaders(), Link: ref('headers', 'Link') },
        content: listContent(options, apiKey, [keyExamples(options).apiKey]),
      },
    },
  });
}

function createKey(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('create', access), options, {
    operationId: 'createKey',
    summary: 'Make an API key, shown this once',
    description:
      'Answered 201 only once the key is stored; the answer carries the key itself in `key`, which no other response ever shows: ' +
      'store it now. Every field error is reported at once. Takes no `Idempotency-Key` (any is 400 `invalid_header`): the answer ' +
      'carries the secret, which is never stored for a replay. After a create that got no answer, list the keys and revoke any extra one.',
    tags: ['keys'],
    requestBody: {
      required: true,
      description:
        'Sent as `application/json` (a `charset` parameter may only be `utf-8`); any other media type is 415. ' +
        'It must have no content coding: a `Content-Encoding` other than `identity` is 415 with `Accept-Encoding: identity`.',
      content: { 'application/json': { schema: ref('schemas', 'NewApiKey') } },
    },
    responses: {
      '201': {
        description: 'The key was made: its ApiKey and, this once, the key.',
        headers: { ...taggedHeaders(), Location: ref('headers', 'KeyLocation') },
        content: jsonContent(ref('schemas', 'CreatedApiKey'), keyExamples(options).created),
      },
    },
  });
}

function getKey(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('read', access), options, {
    operationId: 'getKey',
    summary: 'Get an API key by id',
    description:
      'Never its secret. The `ETag` is `"1"` when the key is made and moves on with every change (a patch, the revocation): sent back ' +
      'in `If-None-Match`, it gets 304 and no body while the key is unchanged. An `If-Match` that names no current tag is 412.',
    tags: ['keys'],
    parameters: PRECONDITIONS,
    responses: {
      '200': { description: 'The key.', headers: taggedHeaders(), content: jsonContent(apiKey, keyExamples(options).apiKey) },
      '304': { description: "Not Modified: `If-None-Match` matches the key's current entity tag. No body.", headers: taggedHeaders() },
    },
  });
}

function changeKey(options: OpenApiOptions, access: Access): JsonObject {
  const patch = { schema: ref('schemas', 'ApiKeyPatch') };
  return operation(place('change', access), options, {
    operationId: 'changeKey',
    summary: 'Rename an API key or move it to another API version (JSON Merge Patch)',
    description:
      '`apiVersion` is the version the key\'s requests get when they send no `Api-Version`; it is accepted in every version, so an ' +
      'integration upgrades (or goes back) with one change. The new version applies at once on the process that answered and within 5 ' +
      'seconds on every other. The key\'s `ETag` changes with every change, in every version; a patch that changes nothing is 200 with ' +
      'the same tag. `If-Match` and `If-None-Match` are evaluated as on any change (412 when they fail).',
    tags: ['keys'],
    parameters: PRECONDITIONS,
    requestBody: {
      required: true,
      description: 'Sent as `application/merge-patch+json` or `application/json` (a `charset` parameter may only be `utf-8`); anything else is 415.',
      content: { 'application/merge-patch+json': patch, 'application/json': patch },
    },
    responses: { '200': { description: 'The key as it now is.', headers: taggedHeaders(), content: jsonContent(apiKey, keyExamples(options).apiKey) } },
  });
}

function revokeKey(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('remove', access), options, {
    operationId: 'revokeKey',
    summary: 'Revoke an API key',
    description:
      'Answered 204 once the revocation is committed: the key then gets 401 on every process within 5 seconds (at once on the one ' +
      'that answered), and stays listed with `revokedAt`. Revoking a revoked key is 204 again and keeps the first time. A key may ' +
      'revoke itself. `If-Match` and `If-None-Match` are evaluated as on a delete: `If-Match` with the tag read revokes only a key unchanged since.',
    tags: ['keys'],
    parameters: PRECONDITIONS,
    responses: { '204': { description: 'The key is revoked. No body.', headers: everyResponseHeaders() } },
  });
}

/** The keys endpoints (served with SVC_AUTH=keys), as the document describes them. */
export function keyOperations(): DocumentedOperation[] {
  const pathParameters = [ref('parameters', 'KeyId')];
  return [
    { method: 'GET', pattern: PATH, build: listKeys },
    { method: 'POST', pattern: PATH, build: createKey },
    { method: 'GET', pattern: ITEM, pathParameters, build: getKey },
    { method: 'PATCH', pattern: ITEM, pathParameters, build: changeKey },
    { method: 'DELETE', pattern: ITEM, pathParameters, build: revokeKey },
  ];
}
