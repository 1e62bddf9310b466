import type { Access } from '../http/router.ts';
import { everyResponseHeaders } from './headers.ts';
import type { OpenApiOptions } from './options.ts';
import { canHappen, codesByStatus, type OperationPlace, problemResponse } from './problems.ts';
import { type JsonObject, ref } from './schemas.ts';
import { accessSentence, securityOf } from './security.ts';
import { versionResponseHeaders } from './version-headers.ts';

export type { OpenApiOptions } from './options.ts';
export type { OperationPlace } from './problems.ts';

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
  for (const [status, codes] of codesByStatus(place, options)) responses[String(status)] = problemResponse(status, codes, place, options);
  return responses;
}

// The operation's own description, then what it needs to be called, as its own paragraph.
function describedAccess(place: OperationPlace, options: OpenApiOptions, description: unknown): JsonObject {
  const parts = [typeof description === 'string' ? description : '', accessSentence(place.access, options.auth)].filter((part) => part !== '');
  return parts.length === 0 ? {} : { description: parts.join('\n\n') };
}

/**
 * One operation object: `fields` (its success responses among them) plus the X-Request-Id and
 * Api-Version parameters, the problem responses it can meet, the RateLimit headers, the headers of
 * the document's version on every response, and the security it needs (the scope of its route),
 * each as the error scopes of problems.ts place them.
 */
export function operation(place: OperationPlace, options: OpenApiOptions, fields: JsonObject): JsonObject {
  const responses = { ...(fields['responses'] as JsonObject), ...errorResponses(place, options) } as Record<string, JsonObject>;
  // Every response counted against the rate limit carries the RateLimit fields, successes included
  // (a 429 of the stream limit alone carries none).
  if (options.rateLimited && canHappen('rate_limited', place, options)) {
    for (const response of Object.values(responses)) {
      response['headers'] = { ...(response['headers'] as JsonObject), RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimitPolicy') };
    }
  }
  for (const [status, response] of Object.entries(responses)) {
    const headers = (response['headers'] as JsonObject | undefined) ?? {};
    response['headers'] = { ...headers, ...versionResponseHeaders(options, status, headers) };
  }
  const security = securityOf(place.kind, place.access, options.auth);
  const parameters = [ref('parameters', 'XRequestId'), ref('parameters', 'ApiVersion'), ...((fields['parameters'] as unknown[]) ?? [])];
  return { ...fields, ...describedAccess(place, options, fields['description']), parameters, security, responses };
}

/** Builds one operation object for a route that is served with `access`. */
export type OperationBuilder = (options: OpenApiOptions, access: Access) => JsonObject;

/** An operation the document knows how to describe: its method, path pattern and builder. */
export interface DocumentedOperation {
  method: string;
  pattern: string;
  build: OperationBuilder;
  /** Parameters of the path item (the `{id}`), shared by every operation on it. */
  pathParameters?: readonly JsonObject[];
}
