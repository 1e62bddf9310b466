import { type ErrorCode, ERRORS, type OwnError, reasonPhrase } from '../http/errors.ts';
import type { Access } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';
import { everyResponseHeaders } from './headers.ts';
import type { OpenApiOptions } from './options.ts';
import { exampleProblem, type OperationKind, type ResourceName } from './problem-examples.ts';
import { type JsonObject, ref } from './schemas.ts';
import { credentialChecked, insufficientScopeHeader, scopeCanFail } from './security.ts';

export { exampleProblem, type OperationKind, type ResourceName } from './problem-examples.ts';

/** Where one error code can happen. */
export interface ErrorScope {
  /** The kinds of operation that can answer it; `any_request`: before routing, on no operation. */
  on: readonly OperationKind[] | 'any_request';
  /**
   * Only when the service is configured so: rate limiting on; a credential checked (SVC_API_TOKEN on
   * writes, SVC_AUTH on every operation that is not open); a scope a valid credential can lack.
   */
  when?: 'rate_limit' | 'credential' | 'scope';
  /** Only on these resources' operations (`described`: those of the described resources): the code comes from a rule of theirs. */
  resources?: readonly ResourceName[] | 'described';
  /** A second place the same code can happen (a header only one operation reads). */
  also?: ErrorScope;
}

/** Where an operation is: its kind, the resource it belongs to (if any), who may call it, and a path for the examples. */
export interface OperationPlace {
  kind: OperationKind;
  resource?: ResourceName;
  access: Access;
  instance: string;
  /** The described resource the operation is of: its own errors (a rule's refusal) can answer it. */
  described?: Resource;
}

const EVERY_OPERATION: readonly OperationKind[] = ['readiness', 'document', 'list', 'read', 'create', 'change', 'remove', 'log', 'action'];
// Everything that reads a request body: creates (POST) and changes (PATCH).
const WITH_BODY: readonly OperationKind[] = ['create', 'change'];
const WRITES: readonly OperationKind[] = ['create', 'change', 'remove'];
// The creates that take an Idempotency-Key, every described resource's: a key's and a webhook's 201 carry a secret, which is never stored for a replay.
const REPLAYED_CREATES = 'described';

/**
 * Where each error of the catalogue can happen. Typed by ErrorCode, so a code added to ERRORS
 * does not compile until it is placed here, and so reaches the document.
 */
export const ERROR_SCOPES: Readonly<Record<ErrorCode, ErrorScope>> = {
  invalid_json: { on: WITH_BODY },
  invalid_query: { on: ['list', 'log'] },
  // An Api-Version the service does not serve, on any request; or a key's or the default version past its sunset.
  unsupported_api_version: { on: EVERY_OPERATION },
  // Idempotency-Key on a create (any at all on POST /api/keys); If-Match or If-None-Match on a read, a change or a delete;
  // Last-Event-ID on the event feed's live stream.
  invalid_header: { on: ['read', ...WRITES], also: { on: ['list'], resources: ['events'] } },
  bad_request: { on: 'any_request' },
  request_timeout: { on: 'any_request' },
  headers_too_large: { on: 'any_request' },
  uri_too_long: { on: 'any_request' },
  unauthorized: { on: EVERY_OPERATION, when: 'credential' },
  forbidden: { on: EVERY_OPERATION, when: 'scope' },
  not_found: { on: ['read', 'change', 'remove', 'log', 'action'] },
  method_not_allowed: { on: 'any_request' },
  idempotency_key_in_use: { on: ['create'], resources: REPLAYED_CREATES },
  // A manual retry of a delivery to a disabled webhook (POST …/deliveries/{eventId}/retry).
  webhook_disabled: { on: ['action'], resources: ['webhooks'] },
  // Every method of one resource evaluates If-Match and If-None-Match (docs/api.md, ETags).
  precondition_failed: { on: ['read', 'change', 'remove'] },
  // The event feed, when an event it would need is past retention (docs/events.md); a manual retry of a
  // delivery whose event is past it (POST …/deliveries/{eventId}/retry).
  events_expired: { on: ['list'], resources: ['events'], also: { on: ['action'], resources: ['webhooks'] } },
  payload_too_large: { on: WITH_BODY },
  unsupported_media_type: { on: WITH_BODY },
  validation_failed: { on: WITH_BODY },
  idempotency_key_reused: { on: ['create'], resources: REPLAYED_CREATES },
  // Readiness is exempt from rate limiting, so a balancer's probe is never refused; the event feed's
  // live stream has a limit per caller whatever SVC_RATE_LIMIT says (docs/events.md).
  rate_limited: { on: EVERY_OPERATION.filter((kind) => kind !== 'readiness'), when: 'rate_limit', also: { on: ['list'], resources: ['events'] } },
  internal_error: { on: EVERY_OPERATION },
  unavailable: { on: EVERY_OPERATION },
};

/** The settings that add error responses: who may call, and rate limiting. */
export type ErrorSettings = Pick<OpenApiOptions, 'auth' | 'rateLimited'>;

/** Whether `code` can answer the operation at `place` with `settings`. */
export function canHappen(code: ErrorCode, place: OperationPlace, settings: ErrorSettings): boolean {
  return happensIn(ERROR_SCOPES[code], place, settings);
}

function happensIn(scope: ErrorScope, place: OperationPlace, settings: ErrorSettings): boolean {
  if (scope.also !== undefined && happensIn(scope.also, place, settings)) return true;
  if (scope.on === 'any_request' || !scope.on.includes(place.kind)) return false;
  if (scope.resources === 'described' && place.described === undefined) return false;
  if (Array.isArray(scope.resources) && (place.resource === undefined || !scope.resources.includes(place.resource))) return false;
  if (scope.when === 'rate_limit') return settings.rateLimited;
  if (scope.when === 'credential') return credentialChecked(place.kind, place.access, settings.auth);
  if (scope.when === 'scope') return scopeCanFail(place.access, settings.auth);
  return true;
}

/** Extra response headers an error status carries; a 403's challenge names the operation's scope. */
function headersOfStatus(status: number, place: OperationPlace): JsonObject {
  if (status === 401) return { 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') };
  if (status === 403 && place.access !== 'open') return { 'WWW-Authenticate': insufficientScopeHeader(place.access) };
  if (status === 415) return { 'Accept-Encoding': ref('headers', 'AcceptEncoding') };
  if (status === 429 || status === 503) return { 'Retry-After': ref('headers', 'RetryAfter') };
  return {};
}

/** The problem schema narrowed to one status and the codes an operation can meet with it. */
function problemSchemaFor(status: number, codes: readonly string[]): JsonObject {
  return {
    allOf: [
      ref('schemas', 'Problem'),
      { properties: { status: { const: status }, title: { const: reasonPhrase(status) }, code: { enum: codes } } },
    ],
  };
}

// The errors of a resource's own rules, which can answer a change of it, and of its checks, a create or a change.
function ownErrors(place: OperationPlace): OwnError[] {
  const resource = place.described;
  if (resource === undefined) return [];
  const checks = place.kind === 'create' || place.kind === 'change' ? resource.checks.map((check) => check.refusal) : [];
  return [...(place.kind === 'change' ? resource.rules.map((rule) => rule.refusal) : []), ...checks];
}

// What the catalogue or the resource's own errors say of `code`.
function errorOf(code: string, place: OperationPlace): OwnError {
  const own = ownErrors(place).find((error) => error.code === code);
  return own ?? { code, ...ERRORS[code as ErrorCode] };
}

/** The response object of one error status of the operation at `place`. */
export function problemResponse(status: number, codes: readonly string[], place: OperationPlace, settings: ErrorSettings & Pick<OpenApiOptions, 'versions'>): JsonObject {
  const examples: JsonObject = {};
  for (const code of codes) {
    const error = errorOf(code, place);
    examples[code] = { summary: error.detail, value: exampleProblem(error, { ...place, auth: settings.auth, versions: settings.versions }) };
  }
  const list = codes.map((code) => `\`${code}\``).join(', ');
  return {
    description: `${reasonPhrase(status)}: ${list}.`,
    headers: { ...everyResponseHeaders(), ...headersOfStatus(status, place) },
    content: { 'application/problem+json': { schema: problemSchemaFor(status, codes), examples } },
  };
}

/** The error codes the operation at `place` can meet with `settings` (the resource's own among them), grouped by status (ascending). */
export function codesByStatus(place: OperationPlace, settings: ErrorSettings): Map<number, string[]> {
  const grouped = new Map<number, string[]>();
  const errors: OwnError[] = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => canHappen(code, place, settings)).map((code) => ({ code, ...ERRORS[code] }));
  errors.push(...ownErrors(place));
  for (const { code, status } of errors.sort((a, b) => a.status - b.status)) grouped.set(status, [...(grouped.get(status) ?? []), code]);
  return grouped;
}
