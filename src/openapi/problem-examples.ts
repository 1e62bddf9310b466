import type { CredentialCheck } from '../callers/caller.ts';
import { type ErrorCode, ERRORS as ERRORS_BY_CODE, HttpError, type HttpErrorOptions, type OwnError } from '../http/errors.ts';
import { forbidden, identifyRequest, unauthorized } from '../http/bearer.ts';
import { problemFor } from '../http/problem.ts';
import type { Access } from '../http/router.ts';
import { validationFailed } from '../http/write-input.ts';
import { validateApiKeyPatch, validateNewApiKey } from '../keys/validate.ts';
import type { Resource } from '../resources/resource.ts';
import { validatorsOf } from '../resources/validate.ts';
import { EXPIRED_EVENT_DETAIL } from '../webhooks/presenter.ts';
import { validateNewWebhook, validateWebhookPatch } from '../webhooks/validate.ts';
import type { Validated } from '../shared/validation.ts';
import { negotiator } from '../versions/negotiate.ts';
import type { DocumentedAuth, DocumentedVersions } from './options.ts';
import type { JsonObject } from './schemas.ts';

/** The kinds of operation of the document; an error is placed on some of them. */
export type OperationKind = 'readiness' | 'document' | 'list' | 'read' | 'create' | 'change' | 'remove' | 'log' | 'action';

/** The resources, by their path segment (`keys`, `events`, `webhooks`, and every described resource's plural); a use-case rule of one is placed on it alone. */
export type ResourceName = string;

/** Where an example problem is answered: the operation's kind, resource and access, and its path. */
export interface ExamplePlace {
  instance: string;
  kind?: OperationKind;
  resource?: ResourceName;
  access?: Access;
  auth?: DocumentedAuth;
  /** The versions of the document: those a refused version's problem lists. */
  versions?: DocumentedVersions;
  /** The described resource of the operation, whose field rules make its field errors. */
  described?: Resource;
}

const REQUEST_ID = '5b0c7e0e-3f1a-4c57-9d39-1f7d6c0b7a11';
// When a key's expiry is judged in the example: an expiry before it is `too_small`.
const EXAMPLE_NOW = new Date('2026-11-22T09:30:00.000Z');

// The event types a webhook example may name: none of them is valid twice, whatever the resources.
const NO_EVENTS = { names: [], typeNamed: () => 1 };

// A key's or a webhook's body as the first version takes it (no apiVersion member); the examples name no version.
const FIRST_VERSION_PIN = { served: [], defaultVersion: '', pinnable: false };

// Field errors of each body, made by the service's own validators so the examples cannot drift.
const INVALID_BODIES: Readonly<Record<string, Partial<Record<OperationKind, () => Validated<unknown>>>>> = {
  webhooks: {
    create: () => validateNewWebhook({ url: 'ftp://hooks.example.com/', events: ['example.created', 'example.created'] }, { allowPrivate: false, events: NO_EVENTS }, FIRST_VERSION_PIN),
    change: () => validateWebhookPatch({ url: null, status: 3 }, { allowPrivate: false, events: NO_EVENTS }, FIRST_VERSION_PIN),
  },
  keys: {
    create: () => validateNewApiKey({ name: 'ci deploys', scopes: ['write', 'write'], expiresAt: '2026-01-31T12:00:00Z' }, EXAMPLE_NOW, FIRST_VERSION_PIN),
    change: () => validateApiKeyPatch({ name: null, scopes: ['admin'] }, []),
  },
};

// A described resource's invalid bodies, from its own field rules: a create that leaves its first
// field out and sends a value its second field refuses, and an unknown member; a patch that sends null.
function invalidResourceBody(resource: Resource, kind: OperationKind): Validated<unknown> | undefined {
  const { validateNew, validatePatch } = validatorsOf(resource);
  const fields = Object.entries(resource.fields);
  if (kind === 'change') return validatePatch(Object.fromEntries(fields.slice(0, 1).map(([name]) => [name, null])));
  if (kind !== 'create') return undefined;
  const [second] = fields.slice(1);
  const refused = second?.[1].refused[0];
  return validateNew({ ...(second === undefined || refused === undefined ? {} : { [second[0]]: refused.value }), colour: 'red' });
}

const INVALID_QUERY: HttpErrorOptions = {
  detail: 'limit must be an integer from 1 to 200',
  errors: [{ parameter: 'limit', code: 'too_large', detail: 'limit must be an integer from 1 to 200' }],
};

// The request header each kind of operation checks, named in its invalid_header example.
const HEADER_OF_KIND: Partial<Record<OperationKind, { name: string; detail: string }>> = {
  create: { name: 'Idempotency-Key', detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' },
  read: { name: 'If-None-Match', detail: 'If-None-Match must be * or a list of entity tags such as "3" (quotes included).' },
  change: { name: 'If-Match', detail: 'If-Match must be * or a list of entity tags such as "3" (quotes included).' },
  remove: { name: 'If-Match', detail: 'If-Match must be * or a list of entity tags such as "3" (quotes included).' },
};
const KEYS_TAKE_NO_IDEMPOTENCY_KEY =
  'POST /api/keys takes no Idempotency-Key: its response carries the new key, which is never stored for a replay.';

const WEBHOOKS_TAKE_NO_IDEMPOTENCY_KEY =
  "POST /api/webhooks takes no Idempotency-Key: its response carries the webhook's secret, which is never stored for a replay.";

function headerError(place: ExamplePlace): HttpError {
  const header =
    place.resource === 'keys' && place.kind === 'create'
      ? { name: 'Idempotency-Key', detail: KEYS_TAKE_NO_IDEMPOTENCY_KEY }
      : place.resource === 'webhooks' && place.kind === 'create'
        ? { name: 'Idempotency-Key', detail: WEBHOOKS_TAKE_NO_IDEMPOTENCY_KEY }
        : HEADER_OF_KIND[place.kind ?? 'read'];
  if (header === undefined) return new HttpError('invalid_header');
  return new HttpError('invalid_header', { detail: header.detail, errors: [{ parameter: header.name, code: 'invalid', detail: header.detail }] });
}

function fieldErrors(place: ExamplePlace): HttpError {
  if (place.kind === undefined) return new HttpError('validation_failed');
  const own = place.resource === undefined ? undefined : INVALID_BODIES[place.resource]?.[place.kind];
  const result = place.described === undefined ? own?.() : invalidResourceBody(place.described, place.kind);
  return result === undefined || result.ok ? new HttpError('validation_failed') : validationFailed(result);
}

// The refusal of a request that came without a credential, as the service words it.
const NEVER_ASKED: CredentialCheck = { identify: () => ({ ok: false, refusal: { reason: 'unknown', detail: '' } }) };
function missingCredential(place: ExamplePlace): HttpError {
  if (place.auth === undefined || place.auth.mode === 'off') return new HttpError('unauthorized');
  const identified = identifyRequest(NEVER_ASKED, undefined);
  return identified instanceof Promise || identified.ok ? new HttpError('unauthorized') : unauthorized(identified.refusal);
}

// A version no service serves (there is no thirteenth month), as a client might send it.
const UNSERVED_VERSION = '2026-13-01';

// The 400 of a version that is not served, as the service's own negotiation refuses it.
function refusedVersion(place: ExamplePlace): HttpError {
  if (place.versions === undefined) return new HttpError('unsupported_api_version');
  const { api, defaultVersion } = place.versions;
  try {
    negotiator(api, defaultVersion).named(place.instance, UNSERVED_VERSION, new URLSearchParams());
  } catch (error) {
    if (error instanceof HttpError) return error;
  }
  throw new Error(`the version ${UNSERVED_VERSION} was served`);
}

/** The error the service raises for `code` at `place`, with the details and field errors it would carry. */
function errorAt(code: ErrorCode, place: ExamplePlace): HttpError {
  if (code === 'validation_failed') return fieldErrors(place);
  if (code === 'unsupported_api_version') return refusedVersion(place);
  if (code === 'invalid_query') return new HttpError(code, INVALID_QUERY);
  if (code === 'invalid_header') return headerError(place);
  if (code === 'unauthorized') return missingCredential(place);
  if (code === 'forbidden' && place.access !== undefined && place.access !== 'open') return forbidden(place.access);
  if (code === 'events_expired' && place.resource === 'webhooks') return new HttpError(code, { detail: EXPIRED_EVENT_DETAIL });
  return new HttpError(code);
}

/** A problem document for `code` (of the catalogue, or a resource's own error) as the service would send it at `place`. */
export function exampleProblem(code: ErrorCode | OwnError, place: ExamplePlace): JsonObject {
  const error = typeof code === 'string' ? errorAt(code, place) : Object.hasOwn(ERRORS_BY_CODE, code.code) ? errorAt(code.code as ErrorCode, place) : new HttpError(code);
  return { ...problemFor(error, place.instance, REQUEST_ID) };
}
