import { DeliveryStatus, WebhookStatus } from '../webhooks/model.ts';
import { MAX_URL_LENGTH } from '../webhooks/targets.ts';
import { DEFAULT_KEEP_CURRENT_SECONDS, MAX_KEEP_CURRENT_SECONDS } from '../webhooks/validate.ts';
import type { OpenApiOptions } from './options.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, ref } from './schemas.ts';
import { pinnedVersion } from './version-schemas.ts';

// The kind of a webhook's representation, as the API versions change it (src/webhooks/routes.ts).
const KIND = 'webhooks';
// The member a later version added: the version its deliveries are made in.
const PIN = 'apiVersion';
const PIN_TEXT = 'The API version its deliveries are made in (each in the version the webhook had when its event was recorded).';
type Versions = Pick<OpenApiOptions, 'versions'>;

const at = EXAMPLE_TIME;
// A secret of the right shape whose bytes spell EXAMPLE: recognisable, and no real webhook's.
const exampleSecret = `whsec_${Buffer.from('EXAMPLE-EXAMPLE-EXAMPLE-EXAMPLE!').toString('base64')}`;

/** Examples of the webhook endpoints and deliveries in the document's version, of a webhook that takes `eventType` (the first event type served). */
export function webhookExamples(eventType: string, { versions }: Versions) {
  const newest = { id: 4, url: 'https://hooks.example.com/svc', events: [eventType], status: WebhookStatus.enabled, createdAt: at, updatedAt: at, [PIN]: versions.shown.id };
  const webhook = versions.shown.downgrade(KIND, newest) as JsonObject;
  const delivery = {
    eventId: '1042', eventType, status: DeliveryStatus.pending, attempts: 2,
    lastAttemptAt: '2026-11-22T09:30:05.120Z', lastResponseStatus: 500, nextAttemptAt: '2026-11-22T09:35:05.120Z',
  };
  return { webhook, withSecret: { ...webhook, secret: exampleSecret }, delivery } as const;
}

const DELIVERY_MEMBERS = ['eventId', 'eventType', 'status', 'attempts', 'lastAttemptAt', 'lastResponseStatus', 'nextAttemptAt'];

function integerEnum(description: string, values: Readonly<Record<string, number>>): JsonObject {
  return { type: 'integer', description, oneOf: Object.entries(values).map(([name, value]) => ({ const: value, title: name })) };
}

const url = {
  type: 'string',
  format: 'uri',
  maxLength: MAX_URL_LENGTH,
  description:
    'An absolute `https:` URL with no user, password or fragment (`invalid_url`). By default a host that is `localhost`, a name under ' +
    '`.localhost`, or an address in a loopback, private, shared, link-local, unspecified or multicast range, in any spelling, and plain ' +
    '`http:`, are `forbidden_target`; SVC_WEBHOOK_ALLOW_PRIVATE=true lifts that. Stored as the URL parser writes it.',
};
const events = {
  type: ['array', 'null'],
  items: ref('schemas', 'EventType'),
  minItems: 1,
  uniqueItems: true,
  description: 'The event types it receives (at least one, none twice: `duplicate` at the item), or null for every type.',
};
const instantOrNull = (description: string): JsonObject => ({ ...createdAt, type: ['string', 'null'], description });
const secret = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
  description: '`whsec_` and the base64 of 32 random bytes: the key of the signatures (Standard Webhooks). In this response only: store it now.',
};

// A Webhook's members in the document's version: the newest's, less those a later version added.
function webhookMembers(options: Versions): JsonObject {
  const newest: JsonObject = {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Assigned by the database, never reused.' },
    url,
    events,
    status: ref('schemas', 'WebhookStatus'),
    createdAt,
    updatedAt: { ...createdAt, description: 'Moves with every change, a rotation of the secret included.' },
    [PIN]: pinnedVersion(options, false, PIN_TEXT),
  };
  return Object.fromEntries(Object.entries(newest).filter(([member]) => options.versions.shown.has(KIND, member)));
}

// Where the version has it, a create or a patch may set the pin.
function pinOf(options: Versions, said: string): JsonObject {
  return options.versions.shown.has(KIND, PIN) ? { [PIN]: pinnedVersion(options, true, `${PIN_TEXT} ${said}`) } : {};
}

/** `components.schemas` of the webhook endpoints and their deliveries, in the document's version. */
export function webhookSchemas(eventType: string, options: Versions): JsonObject {
  const WEBHOOK_EXAMPLES = webhookExamples(eventType, options);
  const { webhook } = WEBHOOK_EXAMPLES;
  const members = webhookMembers(options);
  const WEBHOOK_MEMBERS = Object.keys(members);
  return {
    WebhookStatus: integerEnum('WebhookStatus: 1 = enabled, 2 = disabled (by a PATCH, or by a receiver that answered 410).', WebhookStatus),
    DeliveryStatus: integerEnum('DeliveryStatus: 1 = pending, 2 = delivered, 3 = failed.', DeliveryStatus),
    Webhook: closedObject(WEBHOOK_MEMBERS, members, { description: 'A webhook: never its secret.', examples: [webhook] }),
    WebhookWithSecret: closedObject([...WEBHOOK_MEMBERS, 'secret'], { ...members, secret }, {
      description: 'The webhook and, in this answer only, its (new) secret.', examples: [WEBHOOK_EXAMPLES.withSecret],
    }),
    NewWebhook: closedObject(['url'], {
      url, events: { ...events, description: `${events.description} Optional: null when omitted.` },
      status: { ...ref('schemas', 'WebhookStatus'), description: 'Optional; 1 (enabled) when omitted.' },
      ...pinOf(options, 'Optional; left out: the version of this request.'),
    }, { description: 'Any other member is `unknown_field`. Every field error is reported at once.', examples: [{ url: webhook.url, events: webhook.events }] }),
    WebhookPatch: closedObject([], {
      url,
      events: { ...events, description: '`null` removes the filter (every type): the one null a patch may carry.' },
      status: ref('schemas', 'WebhookStatus'),
      ...pinOf(options, 'Moved, it applies to the events recorded from then on; a delivery already pending keeps its version and bytes.'),
    }, {
      description: `A JSON Merge Patch (RFC 7396) of ${['`url`', '`events`', '`status`', ...(options.versions.shown.has(KIND, PIN) ? [`\`${PIN}\``] : [])].join(', ')}; \`null\` elsewhere is a \`type\` error. Setting \`status\` 1 enables a disabled webhook again.`,
      examples: [{ status: 1 }, { events: null }],
    }),
    SecretRotation: closedObject([], {
      keepCurrentForSeconds: {
        type: 'integer', minimum: 0, maximum: MAX_KEEP_CURRENT_SECONDS,
        description: `How long the current secret keeps signing beside the new one; ${DEFAULT_KEEP_CURRENT_SECONDS} (a day) when omitted, 0: not at all.`,
      },
    }, { description: 'Optional: an empty body takes the default.', examples: [{ keepCurrentForSeconds: 3600 }] }),
    Delivery: closedObject(DELIVERY_MEMBERS, {
      eventId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'The event delivered, and the `webhook-id` of every attempt.' },
      eventType: ref('schemas', 'EventType'),
      status: ref('schemas', 'DeliveryStatus'),
      attempts: { type: 'integer', minimum: 0, description: 'Every attempt made, manual retries included.' },
      lastAttemptAt: instantOrNull('When the last attempt was made, or null: none yet.'),
      lastResponseStatus: { type: ['integer', 'null'], minimum: 100, maximum: 599, description: "The receiver's status at the last attempt, or null: none yet, or no answer." },
      nextAttemptAt: instantOrNull('When the next attempt is planned, or null: nothing is (delivered, failed, or its webhook disabled).'),
    }, { description: 'One event sent to one webhook.', examples: [WEBHOOK_EXAMPLES.delivery] }),
  };
}
