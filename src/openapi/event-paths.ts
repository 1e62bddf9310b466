import { eventCatalogue } from '../events/catalogue.ts';
import type { Access } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';
import { everyResponseHeaders } from './headers.ts';
import { type DocumentedOperation, type OpenApiOptions, operation } from './operation.ts';
import { exampleOf } from './resource-schemas.ts';
import { listContent } from './lists.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, ref } from './schemas.ts';
import { pageLinkHeader } from './version-headers.ts';

// The event feed of docs/events.md: the Event schema, its parameters and headers, and GET /api/events.
const PATH = '/api/events';
const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const LATER = '2026-11-22T09:31:00.000Z';
// What a page's flag says on the feed, whose `next` link is always sent.
const MORE_EVENTS = 'True when the same request with a larger `limit` would now return more events, with the same filter (events not yet visible do not count).';

/** An Event of each kind the examples show: the first resource's created, then updated (its first field changed to its second resource's example, or kept). */
export function eventExamples(resources: readonly Resource[]): { created: JsonObject; updated: JsonObject } {
  const [first] = resources;
  if (first === undefined) return { created: {}, updated: {} };
  const example = exampleOf(first);
  return {
    created: { id: '1041', type: `${first.singular}.created`, createdAt: EXAMPLE_TIME, data: example },
    updated: { id: '1042', type: `${first.singular}.updated`, createdAt: LATER, data: { ...example, updatedAt: LATER } },
  };
}

/** The names of every event type of `resources`, in the order of their numbers. */
export function eventTypeNames(resources: readonly Resource[]): readonly string[] {
  return eventCatalogue(resources).names;
}

/** `components.schemas` of the feed: Event and EventType. */
export function eventSchemas(resources: readonly Resource[]): JsonObject {
  const titles = resources.map((resource) => `a ${resource.title} for \`${resource.singular}.*\``).join(', ');
  return {
    EventType: { type: 'string', enum: eventTypeNames(resources), description: 'What happened, to which kind of resource. A name, not an integer: receivers route on it.' },
    Event: closedObject(
      ['id', 'type', 'createdAt', 'data'],
      {
        id: { type: 'string', pattern: ID_PATTERN, description: 'Opaque, unique, never reused; what `after` and `Last-Event-ID` take.' },
        type: ref('schemas', 'EventType'),
        createdAt: { ...createdAt, description: 'When the change was recorded: RFC 3339, UTC, with milliseconds.' },
        data: {
          oneOf: resources.map((resource) => ref('schemas', resource.title)),
          description: `The resource (${titles}) right after the change; for \`*.deleted\`, as it was just before.`,
        },
      },
      { description: 'One committed change of a resource, recorded in the same transaction as the change.', examples: [eventExamples(resources).created] },
    ),
  };
}

/** `components.parameters` of the feed. */
export function eventParameters(resources: readonly Resource[]): JsonObject {
  const TYPE_NAMES = eventTypeNames(resources);
  return {
    After: {
      name: 'after',
      in: 'query',
      description:
        'Start after this event (an `id` from the feed); without it, at the oldest event kept. Malformed, or naming no event the service ' +
        'issued: 400 `invalid_query`. When an event after it is past retention: 410 `events_expired` (start again without `after`).',
      schema: { type: 'string', pattern: ID_PATTERN },
    },
    LastEventId: {
      name: 'Last-Event-ID',
      in: 'header',
      description:
        'With `Accept: text/event-stream`: the stream starts after this event (it wins over `after`); what an EventSource sends when it ' +
        'reconnects. Malformed, or naming no event the service issued: 400 `invalid_header`; past retention: 410 `events_expired`.',
      schema: { type: 'string', pattern: ID_PATTERN },
    },
    EventTypes: {
      name: 'type',
      in: 'query',
      description: `Only these types, comma-separated (${TYPE_NAMES.join(', ')}); an unknown one is 400 \`invalid_query\`.`,
      schema: { type: 'string', pattern: `^(${TYPE_NAMES.join('|').replaceAll('.', '\\.')})(,(${TYPE_NAMES.join('|').replaceAll('.', '\\.')}))*$` },
      explode: false,
    },
  };
}

/** `components.headers` of the feed, in the document's version. */
export function eventHeaders(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  return {
    EventsLink: pageLinkHeader(
      options,
      'RFC 8288 link to the next page, on every page: the same query after the last event of this page, or the same query again when it is empty.',
      '^</api/events\\?(after=[A-Za-z0-9_-]{1,64}&)?limit=[1-9][0-9]*(&type=[a-z.,]+)?>; rel="next"$',
      true,
    ),
    EventsETag: {
      description: 'A strong entity tag of this page; sent back in `If-None-Match`, the same request is 304 while nothing new has been recorded.',
      required: true,
      schema: { type: 'string', pattern: '^"[\\x21\\x23-\\x7E]*"$' },
    },
  };
}

// The stream's body: server-sent events (WHATWG HTML), one message per Event.
function streamContent(resources: readonly Resource[]): JsonObject {
  const example = eventExamples(resources).created;
  return {
    schema: { type: 'string', description: 'A text/event-stream: `id: <Event.id>`, `event: <Event.type>`, `data: <the Event as one line of JSON>`, a blank line; comment lines (`:`) keep it open.' },
    example: `:\n\nid: ${example.id}\nevent: ${example.type}\ndata: ${JSON.stringify(example)}\n\n`,
  };
}

function feedOperation(options: OpenApiOptions, access: Access): JsonObject {
  const headers = { ...everyResponseHeaders(), Link: ref('headers', 'EventsLink'), ETag: ref('headers', 'EventsETag') };
  return operation({ kind: 'list', resource: 'events', access, instance: PATH }, options, {
    operationId: 'listEvents',
    summary: 'Follow what changed: events, oldest first',
    description:
      'Every committed change of a resource, recorded in its transaction, oldest first. Follow the `Link` header with ' +
      '`rel="next"` for ever: no event is skipped or repeated, in one order that is the same for every reader, while any number of ' +
      'processes write. Events are kept for SVC_EVENTS_RETENTION (168h by default).',
    tags: ['events'],
    parameters: [ref('parameters', 'After'), ref('parameters', 'Limit'), ref('parameters', 'EventTypes'), ref('parameters', 'IfNoneMatch'), ref('parameters', 'LastEventId')],
    responses: {
      '200': {
        description:
          'A page of events, oldest first (empty when nothing new is visible). With `Accept: text/event-stream`, the live stream instead ' +
          '(docs/events.md): one message per event (`id`, `event`: its type, `data`: the Event as one line of JSON), starting after ' +
          '`Last-Event-ID`, else after `after`, else with what is recorded from now on; a comment line at least every 15 s; it ends ' +
          'on shutdown, when the key is revoked or expires, and at the access token\'s `exp`. A stream past SVC_STREAMS_PER_CALLER ' +
          'streams of its caller (a key, a token\'s `sub`, an address when the service is open) is 429 `rate_limited`, past ' +
          'SVC_MAX_STREAMS of the process 503 `unavailable`, both with `Retry-After` and before the stream starts.',
        headers,
        content: {
          ...listContent(options, ref('schemas', 'Event'), Object.values(eventExamples(options.resources)), MORE_EVENTS),
          'text/event-stream': streamContent(options.resources),
        },
      },
      '304': { description: 'Not Modified: `If-None-Match` matches this page, and nothing new has been recorded. No body.', headers },
    },
  });
}

/** The feed's operations. */
export function eventOperations(): DocumentedOperation[] {
  return [{ method: 'GET', pattern: PATH, build: feedOperation }];
}
