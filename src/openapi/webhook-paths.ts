import type { Access } from '../http/router.ts';
import { VERSION_HEADER } from '../versions/negotiate.ts';
import { eventTypeNames } from './event-paths.ts';
import { displayName, everyResponseHeaders } from './headers.ts';
import { type DocumentedOperation, jsonContent, type OpenApiOptions, operation, taggedHeaders } from './operation.ts';
import type { OperationPlace } from './problems.ts';
import { type JsonObject, ref } from './schemas.ts';
import { webhookExamples } from './webhook-schemas.ts';
import { listContent } from './lists.ts';

// The examples of a document: of a webhook that takes the first event type served.
const examplesOf = (options: OpenApiOptions) => webhookExamples(eventTypeNames(options.resources)[0] ?? '', options);

const PATH = '/api/webhooks';
const ITEM = `${PATH}/{id}`;
const PRECONDITIONS = [ref('parameters', 'IfMatch'), ref('parameters', 'IfNoneMatch')];
const webhook = ref('schemas', 'Webhook');
const withSecret = ref('schemas', 'WebhookWithSecret');
const BODY_RULES =
  'Sent as `application/json` (a `charset` parameter may only be `utf-8`); any other media type is 415. ' +
  'It must have no content coding: a `Content-Encoding` other than `identity` is 415 with `Accept-Encoding: identity`.';

function place(kind: OperationPlace['kind'], access: Access, instance = `${PATH}/4`): OperationPlace {
  return { kind, resource: 'webhooks', access, instance };
}

function list(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('list', access, PATH), options, {
    operationId: 'listWebhooks', summary: 'List webhooks, newest first', tags: ['webhooks'],
    description: 'Never a secret. Keyset paging: follow the `Link` header with `rel="next"` until it is absent.',
    parameters: [ref('parameters', 'Limit'), ref('parameters', 'Cursor')],
    responses: { '200': { description: 'A page of webhooks.', headers: { ...everyResponseHeaders(), Link: ref('headers', 'Link') }, content: listContent(options, webhook, [examplesOf(options).webhook]) } },
  });
}

function create(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('create', access, PATH), options, {
    operationId: 'createWebhook', summary: 'Subscribe a URL to events', tags: ['webhooks'],
    description:
      'Answered 201 once stored, with the webhook\'s `secret`, which no other answer shows: store it now. From then on each event ' +
      'of the types it takes is POSTed to `url`, signed (see the top-level `webhooks`). Takes no `Idempotency-Key` (any is 400 ' +
      '`invalid_header`): the answer carries the secret, which is never stored for a replay.',
    requestBody: { required: true, description: BODY_RULES, content: { 'application/json': { schema: ref('schemas', 'NewWebhook') } } },
    responses: { '201': { description: 'The webhook, and this once its secret.', headers: { ...taggedHeaders(), Location: ref('headers', 'Location') }, content: jsonContent(withSecret, examplesOf(options).withSecret) } },
  });
}

function read(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('read', access), options, {
    operationId: 'getWebhook', summary: 'Get a webhook by id', tags: ['webhooks'], parameters: PRECONDITIONS,
    description: 'Never its secret. With the `ETag` in `If-None-Match`, 304 and no body while it is unchanged.',
    responses: {
      '200': { description: 'The webhook.', headers: taggedHeaders(), content: jsonContent(webhook, examplesOf(options).webhook) },
      '304': { description: "Not Modified: `If-None-Match` matches the webhook's current entity tag. No body.", headers: taggedHeaders() },
    },
  });
}

function change(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('change', access), options, {
    operationId: 'changeWebhook', summary: 'Change a webhook (JSON Merge Patch)', tags: ['webhooks'], parameters: PRECONDITIONS,
    description:
      'Disabling (`status` 2) plans no more attempts: its pending deliveries wait with `nextAttemptAt` null, and events recorded while it ' +
      'is disabled are never sent to it. Enabling it again (`status` 1) makes its pending deliveries due at once.',
    requestBody: {
      required: true,
      description: 'Sent as `application/merge-patch+json` or `application/json`; the rest as on a create.',
      content: { 'application/merge-patch+json': { schema: ref('schemas', 'WebhookPatch') }, 'application/json': { schema: ref('schemas', 'WebhookPatch') } },
    },
    responses: { '200': { description: 'The webhook as it now is.', headers: taggedHeaders(), content: jsonContent(webhook, examplesOf(options).webhook) } },
  });
}

function remove(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('remove', access), options, {
    operationId: 'deleteWebhook', summary: 'Delete a webhook', tags: ['webhooks'], parameters: PRECONDITIONS,
    description: 'Nothing more is sent to it (an attempt already in flight may still arrive); its delivery log goes with it.',
    responses: { '204': { description: 'Deleted. No body.', headers: everyResponseHeaders() } },
  });
}

function rotate(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('change', access, `${PATH}/4/rotate-secret`), options, {
    operationId: 'rotateWebhookSecret', summary: 'Give a webhook a new secret', tags: ['webhooks'], parameters: PRECONDITIONS,
    description:
      'The answer carries the new secret, in this answer only. While the previous one is kept (`keepCurrentForSeconds`), every ' +
      'delivery is signed with both (two `v1,` signatures), so receivers can switch at their own pace. Takes no `Idempotency-Key`.',
    requestBody: { required: false, description: `Optional. ${BODY_RULES}`, content: { 'application/json': { schema: ref('schemas', 'SecretRotation') } } },
    responses: { '200': { description: 'The webhook and its new secret.', headers: taggedHeaders(), content: jsonContent(withSecret, examplesOf(options).withSecret) } },
  });
}

function deliveries(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('log', access, `${PATH}/4/deliveries`), options, {
    operationId: 'listWebhookDeliveries', summary: "A webhook's delivery log, newest first", tags: ['webhooks'],
    description: 'One entry per event sent to it, with its status, attempts and the next one planned. Keyset paging as every list.',
    parameters: [
      ref('parameters', 'Limit'), ref('parameters', 'Cursor'),
      { name: 'status', in: 'query', description: 'Only deliveries in this status; anything else is 400 `invalid_query`.', schema: ref('schemas', 'DeliveryStatus') },
    ],
    responses: {
      '200': {
        description: 'A page of deliveries.',
        headers: { ...everyResponseHeaders(), Link: ref('headers', 'DeliveriesLink') },
        content: listContent(options, ref('schemas', 'Delivery'), [examplesOf(options).delivery]),
      },
    },
  });
}

function retry(options: OpenApiOptions, access: Access): JsonObject {
  return operation(place('action', access, `${PATH}/4/deliveries/1042/retry`), options, {
    operationId: 'retryWebhookDelivery', summary: 'Send a delivery again now', tags: ['webhooks'],
    description:
      'Makes the delivery pending and attempts it at once, with the same `webhook-id`; its retry schedule starts again. ' +
      'Safe to repeat. 410 `events_expired` when the event is no longer kept (`SVC_EVENTS_RETENTION`; its delivery goes with it): ' +
      'nothing is sent. 409 `webhook_disabled` while the webhook is disabled (enable it first).',
    responses: { '202': { description: 'The delivery, now pending.', headers: everyResponseHeaders(), content: jsonContent(ref('schemas', 'Delivery'), { ...examplesOf(options).delivery, nextAttemptAt: examplesOf(options).delivery.lastAttemptAt }) } },
  });
}

/** The webhook endpoints, as the document describes them. */
export function webhookOperations(): DocumentedOperation[] {
  const id = [ref('parameters', 'Id')];
  const eventId = { name: 'eventId', in: 'path', required: true, description: 'The `eventId` of a delivery of this webhook.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } };
  return [
    { method: 'GET', pattern: PATH, build: list },
    { method: 'POST', pattern: PATH, build: create },
    { method: 'GET', pattern: ITEM, pathParameters: id, build: read },
    { method: 'PATCH', pattern: ITEM, pathParameters: id, build: change },
    { method: 'DELETE', pattern: ITEM, pathParameters: id, build: remove },
    { method: 'POST', pattern: `${ITEM}/rotate-secret`, pathParameters: id, build: rotate },
    { method: 'GET', pattern: `${ITEM}/deliveries`, pathParameters: id, build: deliveries },
    { method: 'POST', pattern: `${ITEM}/deliveries/{eventId}/retry`, pathParameters: [...id, eventId], build: retry },
  ];
}

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: "The event's `id`: the same on every attempt, so a receiver can drop a repeat.", schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
  { name: 'webhook-timestamp', description: "This attempt's time, integer Unix seconds; receivers refuse one too far from their clock.", schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature',
    description: '`v1,` and the base64 HMAC-SHA256, keyed with the secret\'s decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`; two, a space apart, while a rotated secret is kept.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$' },
  },
];

// The version a delivery is made in: the document's, for the webhooks pinned to it.
function versionHeader(options: OpenApiOptions): JsonObject {
  const { id } = options.versions.shown;
  const description = `The API version the body is made in: ${id}, this document's, for a webhook whose \`apiVersion\` was ${id} when the event was recorded.`;
  return { name: displayName(VERSION_HEADER), description, schema: { type: 'string', const: id } };
}

/**
 * The top-level `webhooks` (OpenAPI 3.1): what the service POSTs to a subscribed URL, one entry per
 * event type, as made for the webhooks whose `apiVersion` is the document's version.
 */
export function webhookDeliveries(options: OpenApiOptions): JsonObject {
  const entries: JsonObject = {};
  const headers = [...WEBHOOK_HEADERS, versionHeader(options)];
  for (const name of eventTypeNames(options.resources)) {
    entries[name] = {
      post: {
        operationId: `deliver_${name.replace('.', '_')}`,
        summary: `A ${name} event, delivered`,
        description:
          'Signed as Standard Webhooks v1 defines, so any Standard Webhooks library verifies it. The body is the Event exactly as ' +
          '`GET /api/events` shows it in the delivery\'s API version, the same bytes on every attempt. A 2xx within SVC_WEBHOOK_TIMEOUT_MS delivers it; anything else ' +
          'is tried again on SVC_WEBHOOK_RETRY_SCHEDULE (a `Retry-After` on 429 or 503 moves it later); 410 disables the webhook.',
        tags: ['webhooks'],
        // The receiver's own endpoint: it checks the signature, not a credential of this service.
        security: [],
        parameters: headers.map((header) => ({ ...header, in: 'header', required: true })),
        requestBody: { required: true, content: { 'application/json': { schema: { allOf: [ref('schemas', 'Event'), { properties: { type: { const: name } } }] } } } },
        responses: {
          '2XX': { description: 'Delivered.' },
          '410': { description: 'Gone: the webhook is disabled; nothing more is sent until it is enabled again.' },
          default: { description: 'Any other answer, a redirect (never followed), a timeout or no connection: attempted again later.' },
        },
      },
    };
  }
  return entries;
}
