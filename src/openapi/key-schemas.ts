import { SCOPE_NAMES } from '../callers/scopes.ts';
import { KEY_ID_PATTERN, KEY_SCANNER_PATTERN } from '../keys/format.ts';
import type { OpenApiOptions } from './options.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, name, ref } from './schemas.ts';
import { pinnedVersion } from './version-schemas.ts';

// The kind of a key's representation, as the API versions change it (src/keys/routes.ts).
const KIND = 'keys';
// The member a later version added: the version the key's requests get without the header.
const PIN = 'apiVersion';
const PIN_TEXT = 'The API version this key\'s requests get when they send no `Api-Version`.';

/** A key's public id: the pattern of `/api/keys/{id}` and of an ApiKey's `id`. */
export const KEY_ID_SCHEMA: JsonObject = {
  type: 'string',
  pattern: KEY_ID_PATTERN.source,
  description: "The key's public id: the 12 characters after `svc_` in the key itself. Not a secret.",
};

// The whole key, anchored: the scanners' pattern finds one in a text, this one is the whole value.
const KEY_PATTERN = `^${KEY_SCANNER_PATTERN.source.replace(/^\\b|\\b$/g, '')}$`;

// A key's shape with a checksum that fails: recognisable in an example, refused by the service unread.
const exampleId = '7hG2kP9xQ1aZ';
const exampleKey = ['svc', exampleId, 'EXAMPLE'.repeat(7)].join('_');

/** Examples of the keys endpoints in the document's version: an ApiKey (pinned to that version), and the same key as made. */
export function keyExamples({ versions }: Pick<OpenApiOptions, 'versions'>): { apiKey: JsonObject; created: JsonObject } {
  const newest = { id: exampleId, name: 'ci deploys', scopes: ['write'], createdAt: EXAMPLE_TIME, expiresAt: null, revokedAt: null, [PIN]: versions.shown.id };
  const apiKey = versions.shown.downgrade(KIND, newest) as JsonObject;
  return { apiKey, created: { ...apiKey, key: exampleKey } };
}

/** The id of the example key, in the examples' paths. */
export const EXAMPLE_KEY_ID = exampleId;

const scopes = {
  type: 'array',
  items: ref('schemas', 'ScopeName'),
  minItems: 1,
  uniqueItems: true,
  description: 'Lowest first: `read`, `write`, `admin`.',
};

function instant(description: string): JsonObject {
  return { ...createdAt, type: ['string', 'null'], description };
}

// An ApiKey's members in the document's version: the newest's, less those a later version added.
function apiKeyMembers(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  const newest: JsonObject = {
    id: KEY_ID_SCHEMA,
    name,
    scopes,
    createdAt,
    expiresAt: instant('When the key stops working (RFC 3339, UTC, with milliseconds), or null: it never expires.'),
    revokedAt: instant('When the key was revoked (DELETE /api/keys/{id}), or null while it is not.'),
    [PIN]: pinnedVersion(options, false, PIN_TEXT),
  };
  return Object.fromEntries(Object.entries(newest).filter(([member]) => options.versions.shown.has(KIND, member)));
}

// Where the version has it, a key's create may name its pin (else it is the request's version).
function newKeyPin(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  if (!options.versions.shown.has(KIND, PIN)) return {};
  return { [PIN]: pinnedVersion(options, true, `Optional: ${PIN_TEXT} Left out: the version of this request.`) };
}

/** `components.schemas` of the keys endpoints: ScopeName, ApiKey, CreatedApiKey, NewApiKey and ApiKeyPatch (when its route is served). */
export function keySchemas(options: Pick<OpenApiOptions, 'versions'>, patched: boolean): JsonObject {
  const members = apiKeyMembers(options);
  const examples = keyExamples(options);
  return {
    ScopeName: {
      type: 'string',
      enum: SCOPE_NAMES,
      description: 'A scope a key may hold: `read`, `write` (includes `read`) or `admin` (includes `write`). Each operation says which one it needs.',
    },
    ApiKey: closedObject(Object.keys(members), members, { description: 'An API key as stored: never its secret.', examples: [examples.apiKey] }),
    CreatedApiKey: closedObject([...Object.keys(members), 'key'], {
      ...members,
      key: {
        type: 'string',
        pattern: KEY_PATTERN,
        description: 'The key itself, in this response only: the service keeps only a hash of it, so it can never be shown again. Store it now.',
      },
    }, { description: 'The ApiKey just made, and this once the key.', examples: [examples.created] }),
    NewApiKey: closedObject(['name', 'scopes'], {
      name,
      scopes: { ...scopes, description: 'At least one scope name; none twice (`duplicate`). Their order does not matter.' },
      expiresAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description:
          'Optional: an RFC 3339 date-time in the future, with `Z` or an offset (answered in UTC, to the millisecond). Null or left out: the key never expires.',
      },
      ...newKeyPin(options),
    }, {
      description: 'Any other member is reported as `unknown_field`.',
      examples: [{ name: 'ci deploys', scopes: ['write'] }, { name: 'nightly report', scopes: ['read'], expiresAt: '2027-01-31T12:00:00Z' }],
    }),
    ...(patched ? { ApiKeyPatch: keyPatch(options) } : {}),
  };
}

// A key's merge patch: its pin in every version (how an old integration moves to a new one), and its name.
function keyPatch(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  return closedObject([], {
    name,
    [PIN]: pinnedVersion(options, true, `${PIN_TEXT} Taken in every version: the next request without the header gets it, on this process at once, on every other within 5 s.`),
  }, {
    description: 'A JSON Merge Patch (RFC 7396) of `name` and `apiVersion`, both optional, in every version; `null` is a `type` error, any other member `unknown_field`.',
    examples: [{ [PIN]: options.versions.served[0]?.id }, { name: 'ci deploys (old)' }],
  });
}
