import { DeliveryStatus, WebhookStatus } from '../webhooks/model.ts';
import { MAX_URL_LENGTH } from '../webhooks/targets.ts';
import { DEFAULT_KEEP_CURRENT_SECONDS, MAX_KEEP_CURRENT_SECONDS } from '../webhooks/validate.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, ref } from './schemas.ts';

const at = EXAMPLE_TIME;
// A secret of the right shape whose bytes spell EXAMPLE: recognisable, and no real webhook's.
const exampleSecret = `whsec_${Buffer.from('EXAMPLE-EXAMPLE-EXAMPLE-EXAMPLE!').toString('base64')}`;

/** Examples of the webhook endpoints and deliveries, of a webhook that takes `eventType` (the first event type served). */
export function webhookExamples(eventType: string) {
  const webhook = { id: 4, url: 'https://hooks.example.com/svc', events: [eventType], status: WebhookStatus.enabled, createdAt: at, updatedAt: at };
  const delivery = {
    eventId: '1042', eventType, status: DeliveryStatus.pending, attempts: 2,
    lastAttemptAt: '2026-11-22T09:30:05.120Z', lastResponseStatus: 500, nextAttemptAt: '2026-11-22T09:35:05.120Z',
  };
  return { webhook, withSecret: { ...webhook, secret: exampleSecret }, delivery } as const;
}

const WEBHOOK_MEMBERS = ['id', 'url', 'events', 'status', 'createdAt', 'updatedAt'];
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

function webhookMembers(): JsonObject {
  return {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Assigned by the database, never reused.' },
    url,
    events,
    status: ref('schemas', 'WebhookStatus'),
    createdAt,
    updatedAt: { ...createdAt, description: 'Moves with every change, a rotation of the secret included.' },
  };
}

/** `components.schemas` of the webhook endpoints and their deliveries. */
export function webhookSchemas(eventType: string): JsonObject {
  const WEBHOOK_EXAMPLES = webhookExamples(eventType);
  const { webhook } = WEBHOOK_EXAMPLES;
  return {
    WebhookStatus: integerEnum('WebhookStatus: 1 = enabled, 2 = disabled (by a PATCH, or by a receiver that answered 410).', WebhookStatus),
    DeliveryStatus: integerEnum('DeliveryStatus: 1 = pending, 2 = delivered, 3 = failed.', DeliveryStatus),
    Webhook: closedObject(WEBHOOK_MEMBERS, webhookMembers(), { description: 'A webhook: never its secret.', examples: [webhook] }),
    WebhookWithSecret: closedObject([...WEBHOOK_MEMBERS, 'secret'], { ...webhookMembers(), secret }, {
      description: 'The webhook and, in this answer only, its (new) secret.', examples: [WEBHOOK_EXAMPLES.withSecret],
    }),
    NewWebhook: closedObject(['url'], {
      url, events: { ...events, description: `${events.description} Optional: null when omitted.` },
      status: { ...ref('schemas', 'WebhookStatus'), description: 'Optional; 1 (enabled) when omitted.' },
    }, { description: 'Any other member is `unknown_field`. Every field error is reported at once.', examples: [{ url: webhook.url, events: webhook.events }] }),
    WebhookPatch: closedObject([], { url, events: { ...events, description: '`null` removes the filter (every type): the one null a patch may carry.' }, status: ref('schemas', 'WebhookStatus') }, {
      description: 'A JSON Merge Patch (RFC 7396) of `url`, `events` and `status`; `null` elsewhere is a `type` error. Setting `status` 1 enables a disabled webhook again.',
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
