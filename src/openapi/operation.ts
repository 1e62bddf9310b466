import { everyResponseHeaders } from './headers.ts';
import { canHappen, codesByStatus, type OperationKind, problemResponse, type ResourceName } from './problems.ts';
import { type JsonObject, ref } from './schemas.ts';

/** What the document says depends on: the settings that add responses or security. */
export interface OpenApiOptions {
  /** SVC_API_TOKEN is set: POSTs, PATCHes and DELETEs need a bearer token and may answer 401. */
  bearerAuth: boolean;
  /** SVC_RATE_LIMIT is on: every operation but readiness may answer 429. */
  rateLimited: boolean;
}

/** Where an operation is: its kind, the resource it belongs to (if any), and a path for the examples. */
export interface OperationPlace {
  kind: OperationKind;
  resource?: ResourceName;
  instance: string;
}

/** `content` of a JSON body with `schema` and one example. */
export function jsonContent(schema: JsonObject, example: unknown): JsonObject {
  return { 'application/json': { schema, example } };
}

/** The headers of a response carrying one representation: every response's, and its `ETag`. */
export function taggedHeaders(): JsonObject {
  return { ...everyResponseHeaders(), ETag: ref('headers', 'ETag') };
}

/** The problem responses of an operation, by status. */
function errorResponses(place: OperationPlace, options: OpenApiOptions): JsonObject {
  const responses: JsonObject = {};
  for (const [status, codes] of codesByStatus(place.kind, place.resource, options)) {
    responses[String(status)] = problemResponse(status, codes, place.instance, place.kind);
  }
  return responses;
}

/**
 * One operation object: `fields` (its success responses among them) plus the X-Request-Id
 * parameter, the problem responses it can meet, the RateLimit headers and the security it needs,
 * each as the error scopes of problems.ts place them.
 */
export function operation(place: OperationPlace, options: OpenApiOptions, fields: JsonObject): JsonObject {
  const responses = { ...(fields['responses'] as JsonObject), ...errorResponses(place, options) } as Record<string, JsonObject>;
  // Every response counted against the rate limit carries the RateLimit fields, successes included.
  if (canHappen('rate_limited', place.kind, place.resource, options)) {
    for (const response of Object.values(responses)) {
      response['headers'] = { ...(response['headers'] as JsonObject), RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimitPolicy') };
    }
  }
  const security = canHappen('unauthorized', place.kind, place.resource, options) ? [{ bearerAuth: [] }] : [];
  return { ...fields, parameters: [ref('parameters', 'XRequestId'), ...((fields['parameters'] as unknown[]) ?? [])], security, responses };
}
