import { enumRule, type FieldError, type FieldRule, type Fields, fieldError, integerRule, isJsonObject, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import type { EventCatalogue } from '../events/catalogue.ts';
import { pinRule, type PinRules } from '../versions/pins.ts';
import { type NewWebhook, WEBHOOK_STATUSES, type WebhookPatch, WebhookStatus } from './model.ts';
import { checkWebhookUrl } from './targets.ts';

/** The longest grace period of a rotation: seven days. */
export const MAX_KEEP_CURRENT_SECONDS = 604_800;
/** The grace period when a rotation names none: one day. */
export const DEFAULT_KEEP_CURRENT_SECONDS = 86_400;

// Event types as validated: `types` null for every type (a wrapper, so `null` can pass the rule).
interface EventFilter {
  types: number[] | null;
}

interface Body {
  url: string;
  events: EventFilter;
  status: WebhookStatus;
  apiVersion: string;
}

function itemError(field: string, index: number, code: string, detail: string): FieldError {
  return { pointer: `/${field}/${index}`, code, detail };
}

/** What a webhook's body is checked against: whether private targets are allowed, and the event types there are. */
export interface WebhookRules {
  allowPrivate: boolean;
  events: Pick<EventCatalogue, 'names' | 'typeNamed'>;
}

// Null for every type, or a non-empty list of known names, none twice; an item's error points at it.
const eventsRule = (catalogue: WebhookRules['events']): FieldRule<EventFilter> => (value, field, errors) => {
  const EVENT_NAMES = catalogue.names;
  if (value === null) return { types: null };
  if (!Array.isArray(value)) {
    errors.push(fieldError(field, 'type', `${field} must be null or an array of event types (${EVENT_NAMES.join(', ')})`));
    return { types: null };
  }
  if (value.length === 0) errors.push(fieldError(field, 'too_short', `${field} must name at least one event type, or be null for all`));
  const types: number[] = [];
  value.forEach((item: unknown, index) => {
    const type = typeof item === 'string' ? catalogue.typeNamed(item) : undefined;
    if (typeof item !== 'string') errors.push(itemError(field, index, 'type', `${field}/${index} must be a string`));
    else if (type === undefined) errors.push(itemError(field, index, 'invalid_enum', `${field}/${index} must be one of ${EVENT_NAMES.join(', ')}`));
    else if (types.includes(type)) errors.push(itemError(field, index, 'duplicate', `${field}/${index} repeats ${item}`));
    else types.push(type);
  });
  return { types: types.sort((a, b) => a - b) };
};

// A URL the service may send to (docs/webhooks.md, Targets); the stored text is the normalized URL.
function urlRule(allowPrivate: boolean): FieldRule<string> {
  return (value, field, errors) => {
    if (typeof value !== 'string') {
      errors.push(fieldError(field, 'type', `${field} must be a string`));
      return '';
    }
    const checked = checkWebhookUrl(value, allowPrivate);
    if (checked.ok) return checked.url.href;
    errors.push(fieldError(field, checked.code, checked.detail));
    return '';
  };
}

/** What a body's `apiVersion` is checked against: the versions served, and whether the request's version has the member. */
export type WebhookPinRules = Pick<PinRules, 'served' | 'pinnable'>;

// The fields of a body in the request's version: `apiVersion` only where its Webhook has the member (else unknown_field).
function fieldsOf(rules: WebhookRules, pin: WebhookPinRules): Fields<Body> {
  const fields: Fields<Omit<Body, 'apiVersion'>> = {
    url: { rule: urlRule(rules.allowPrivate), required: true },
    events: { rule: eventsRule(rules.events), required: false },
    status: { rule: enumRule(WEBHOOK_STATUSES), required: false },
  };
  return (pin.pinnable ? { ...fields, apiVersion: { rule: pinRule(pin.served), required: false } } : fields) as Fields<Body>;
}

/** Checks a create-webhook body, reporting every field error at once; without `apiVersion` it pins `pin.defaultVersion` (the request's version). */
export function validateNewWebhook(body: unknown, rules: WebhookRules, pin: PinRules): Validated<NewWebhook> {
  const result = validateCreate(body, fieldsOf(rules, pin));
  if (!result.ok) return result;
  const { url, events, status, apiVersion } = result.value;
  return { ok: true, value: { url, eventTypes: events?.types ?? null, status: status ?? WebhookStatus.enabled, apiVersion: apiVersion ?? pin.defaultVersion } };
}

/**
 * Checks a merge patch of a webhook: `"events": null` removes the filter (the one null a patch may
 * carry); any other null is a type error, as for every resource.
 */
export function validateWebhookPatch(body: unknown, rules: WebhookRules, pin: WebhookPinRules): Validated<WebhookPatch> {
  const clearsFilter = isJsonObject(body) && Object.hasOwn(body, 'events') && body['events'] === null;
  const rest = clearsFilter ? Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'events')) : body;
  const result = validatePatch(rest, fieldsOf(rules, pin));
  if (!result.ok) return result;
  const { url, events, status, apiVersion } = result.value;
  const patch: WebhookPatch = {};
  if (url !== undefined) patch.url = url;
  if (clearsFilter) patch.eventTypes = null;
  else if (events !== undefined) patch.eventTypes = events.types;
  if (status !== undefined) patch.status = status;
  if (apiVersion !== undefined) patch.apiVersion = apiVersion;
  return { ok: true, value: patch };
}

/** Checks a rotate-secret body (an empty body is `{}`): the grace period in seconds. */
export function validateRotation(body: unknown): Validated<number> {
  const result = validateCreate<{ keepCurrentForSeconds: number }>(body, {
    keepCurrentForSeconds: { rule: integerRule({ min: 0, max: MAX_KEEP_CURRENT_SECONDS }), required: false },
  });
  if (!result.ok) return result;
  return { ok: true, value: result.value.keepCurrentForSeconds ?? DEFAULT_KEEP_CURRENT_SECONDS };
}
