import { SECURITY_HEADERS } from '../http/security-headers.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../shared/paging.ts';
import { VERSION_HEADER, VERSION_PARAMETER } from '../versions/negotiate.ts';
import { KEY_ID_SCHEMA } from './key-schemas.ts';
import type { OpenApiOptions } from './options.ts';
import { type JsonObject, ref } from './schemas.ts';
import { challengeHeader } from './security.ts';
import { pageLinkHeader, versionHeaderComponents } from './version-headers.ts';

// `content-security-policy` → `ContentSecurityPolicy`, a component name Redocly accepts.
function componentName(header: string): string {
  return header.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());
}

/** `content-security-policy` → `Content-Security-Policy`, as a header is usually written. */
export function displayName(header: string): string {
  return header.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
// A strong entity tag as the service sends it; requests may list several, weak ones too (RFC 9110 §8.8.3).
const OPAQUE_TAG = '"[\\x21\\x23-\\x7E]*"';
const ENTITY_TAG = `^${OPAQUE_TAG}$`;
const TAG_LIST = `^(\\*|(W/)?${OPAQUE_TAG}([ \\t]*,[ \\t]*(W/)?${OPAQUE_TAG})*)$`;

function header(description: string, schema: JsonObject, required = true): JsonObject {
  return { description, required, schema };
}

/** `components.headers`: every response header the service documents, as configured and in the document's version; `keys`: the keys endpoints are served. */
export function headerComponents(options: Pick<OpenApiOptions, 'auth' | 'rateLimited' | 'versions'>, keys: boolean): JsonObject {
  const headers: JsonObject = {
    XRequestId: header('The client\'s X-Request-Id when it is 1..128 of [A-Za-z0-9._:-], else a new UUID.', {
      type: 'string',
      pattern: REQUEST_ID_PATTERN,
    }),
    Location: header('The path of the created resource.', { type: 'string', format: 'uri-reference', pattern: '^/api/[a-z_]+/[1-9][0-9]*$' }),
    ...(keys ? { KeyLocation: header('The path of the key just made.', { type: 'string', format: 'uri-reference', pattern: '^/api/keys/[0-9A-Za-z]{12}$' }) } : {}),
    Link: pageLinkHeader(
      options,
      'RFC 8288 link to the next page, with the same `limit` and filters (an integer enum field, such as `status`); absent on the last page. The cursor in it is opaque.',
      '^</api/[a-z_]+\\?limit=[1-9][0-9]*(&[A-Za-z]+=[0-9]+)*&cursor=[A-Za-z0-9_-]+>; rel="next"$',
      false,
    ),
    ETag: header(
      'The strong entity tag (RFC 9110 §8.8.3) of the representation, opaque to clients; it changes whenever the resource changes. ' +
        'Send it back in `If-Match` to change or delete only this version, or in `If-None-Match` to revalidate. ' +
        'A replayed create carries the tag it was first sent with.',
      { type: 'string', pattern: ENTITY_TAG },
    ),
    DeliveriesLink: pageLinkHeader(
      options,
      'RFC 8288 link to the next page of a delivery log, with the same `limit` and `status`; absent on the last page. The cursor in it is opaque.',
      '^</api/webhooks/[1-9][0-9]*/deliveries\\?limit=[1-9][0-9]*(&status=[123])?&cursor=[A-Za-z0-9_-]+>; rel="next"$',
      false,
    ),
    IdempotentReplayed: header('Present on a replay of a stored response for the same Idempotency-Key and body.', { const: 'true' }, false),
    // RFC 9110 §15.5.16: a 415 says which content codings a request body may have.
    AcceptEncoding: header('The content codings a request body may have: only `identity` (no compression). On every 415.', { const: 'identity' }),
    ...versionHeaderComponents(options),
  };
  // On every 429, and on a 503 when another process held the database's write lock too long.
  headers['RetryAfter'] = header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, false);
  if (options.auth.mode !== 'off' || options.auth.token) headers['WwwAuthenticate'] = challengeHeader(options.auth);
  if (options.rateLimited) {
    // Sent on every response counted against the limit, so not on a 503 answered while shutting down.
    const counted = 'IETF httpapi RateLimit header fields draft; on every response counted against the limit.';
    headers['RateLimit'] = header(`\`r\`: requests the client could send right now; \`t\`: seconds (rounded up) until it could send one more; on a 429, \`r=0\` and \`t\` equals Retry-After (${counted})`, {
      type: 'string',
      pattern: '^"[A-Za-z0-9_-]+";r=\\d+;t=\\d+$',
    }, false);
    headers['RateLimitPolicy'] = header(`\`q\` requests per window of \`w\` seconds: a burst of up to \`q\` after a silent window, then one every \`w\`/\`q\` seconds (${counted})`, {
      type: 'string',
      pattern: '^"[A-Za-z0-9_-]+";q=\\d+;w=\\d+$',
    }, false);
  }
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    headers[componentName(name)] = header('Sent on every response, errors included.', { type: 'string', const: value });
  }
  return headers;
}

/** The headers every response carries: X-Request-Id and the security headers (docs/api.md, Headers). */
export function everyResponseHeaders(): JsonObject {
  const headers: JsonObject = { 'X-Request-Id': ref('headers', 'XRequestId') };
  for (const name of Object.keys(SECURITY_HEADERS)) headers[displayName(name)] = ref('headers', componentName(name));
  return headers;
}

/** `components.parameters`: paging, path ids and the request headers the service reads, the version among them; `keys`: a key's id too. */
export function parameterComponents(options: Pick<OpenApiOptions, 'versions'>, keys: boolean): JsonObject {
  return {
    ...versionParameters(options),
    Limit: {
      name: 'limit',
      in: 'query',
      description: 'Page size. Anything else than an integer in range is 400 `invalid_query`.',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    },
    Cursor: {
      name: 'cursor',
      in: 'query',
      description: 'Opaque: copy it from the `Link` header of the previous page. One the service did not issue is 400 `invalid_query`.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    },
    Id: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'A positive integer in the safe range; anything else is 404, as an unknown id is.',
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    ...(keys ? { KeyId: keyIdParameter() } : {}),
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      description:
        'Makes the create safe to retry for 24 hours: the same key and body replay the stored response ' +
        '(`Idempotent-Replayed: true`) and create nothing; the same key with another body is 422 `idempotency_key_reused`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]{1,255}$' },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      description:
        'Evaluated first (RFC 9110 §13.2.2). The request applies only while the resource is at one of these entity tags (strong ' +
        'comparison: a weak tag never matches); otherwise 412 `precondition_failed`, on GET and HEAD too, and nothing changes. ' +
        '`*` matches any existing resource; a resource that does not exist is 404 whatever this says. Left out, the request ' +
        'applies (last write wins). Malformed: 400 `invalid_header`.',
      schema: { type: 'string', pattern: TAG_LIST },
    },
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      description:
        'Evaluated once `If-Match` (if any) holds. When one of these entity tags matches the current one (weak comparison), or ' +
        'with `*`: GET and HEAD answer 304 with the `ETag` and no body; PATCH and DELETE answer 412 `precondition_failed` and ' +
        'nothing changes. A resource that does not exist is 404 whatever this says. Malformed: 400 `invalid_header`.',
      schema: { type: 'string', pattern: TAG_LIST },
    },
    XRequestId: {
      name: 'X-Request-Id',
      in: 'header',
      description: 'Echoed in the response, the access log and problem documents when valid; otherwise a UUID is generated.',
      schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
    },
  };
}

function keyIdParameter(): JsonObject {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: "A key's public id (12 of [0-9A-Za-z]); anything else is 404, as an unknown id is.",
    schema: KEY_ID_SCHEMA,
  };
}

// The request's version (on every operation), and the documents' own way to name one.
function versionParameters({ versions }: Pick<OpenApiOptions, 'versions'>): JsonObject {
  const { shown, served, defaultVersion } = versions;
  return {
    ApiVersion: {
      name: displayName(VERSION_HEADER),
      in: 'header',
      description:
        `The API version of this request: \`${shown.id}\` is answered as this document says. Without it, the version pinned on the API key, ` +
        `else SVC_API_VERSION (${defaultVersion}). Another version served is answered as its own document says (\`?${VERSION_PARAMETER}=\` on ` +
        'this document, `GET /api/versions`); one that is not served (malformed, unknown, or past its sunset) is 400 ' +
        '`unsupported_api_version`, before any other check, credentials included.',
      schema: { type: 'string', const: shown.id },
    },
    DocumentVersion: {
      name: VERSION_PARAMETER,
      in: 'query',
      description: `The version to describe, for tools that cannot send headers; it wins over \`${displayName(VERSION_HEADER)}\`. One not served is 400 \`unsupported_api_version\`.`,
      schema: { type: 'string', enum: served.map((view) => view.id) },
    },
  };
}
