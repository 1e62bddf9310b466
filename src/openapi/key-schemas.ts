import { SCOPE_NAMES } from '../callers/scopes.ts';
import { KEY_ID_PATTERN, KEY_SCANNER_PATTERN } from '../keys/format.ts';
import { closedObject, createdAt, EXAMPLE_TIME, type JsonObject, name, ref } from './schemas.ts';

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
const apiKey = { id: exampleId, name: 'ci deploys', scopes: ['write'], createdAt: EXAMPLE_TIME, expiresAt: null, revokedAt: null };

/** Examples of the keys endpoints: an ApiKey, and the same key as made. */
export const KEY_EXAMPLES = { apiKey, created: { ...apiKey, key: exampleKey } } as const;

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

function apiKeyMembers(): JsonObject {
  return {
    id: KEY_ID_SCHEMA,
    name,
    scopes,
    createdAt,
    expiresAt: instant('When the key stops working (RFC 3339, UTC, with milliseconds), or null: it never expires.'),
    revokedAt: instant('When the key was revoked (DELETE /api/keys/{id}), or null while it is not.'),
  };
}

const API_KEY_MEMBERS = ['id', 'name', 'scopes', 'createdAt', 'expiresAt', 'revokedAt'];

/** `components.schemas` of the keys endpoints: ScopeName, ApiKey, CreatedApiKey, ApiKeyPatch and NewApiKey. */
export function keySchemas(): JsonObject {
  return {
    ScopeName: {
      type: 'string',
      enum: SCOPE_NAMES,
      description: 'A scope a key may hold: `read`, `write` (includes `read`) or `admin` (includes `write`). Each operation says which one it needs.',
    },
    ApiKey: closedObject(API_KEY_MEMBERS, apiKeyMembers(), { description: 'An API key as stored: never its secret.', examples: [apiKey] }),
    CreatedApiKey: closedObject([...API_KEY_MEMBERS, 'key'], {
      ...apiKeyMembers(),
      key: {
        type: 'string',
        pattern: KEY_PATTERN,
        description: 'The key itself, in this response only: the service keeps only a hash of it, so it can never be shown again. Store it now.',
      },
    }, { description: 'The ApiKey just made, and this once the key.', examples: [KEY_EXAMPLES.created] }),
    ApiKeyPatch: closedObject([], {
      name,
      apiVersion: {
        type: 'string',
        description: 'The version the key\'s requests get without `Api-Version`: one served now (`GET /api/versions`); any other is `invalid_enum`.',
      },
    }, {
      description: 'A JSON Merge Patch (RFC 7396) of `name` and `apiVersion`, both optional, in every version; `null` is a `type` error, any other member `unknown_field`.',
      examples: [{ apiVersion: '2026-11-28' }, { name: 'ci deploys (old)' }],
    }),
    NewApiKey: closedObject(['name', 'scopes'], {
      name,
      scopes: { ...scopes, description: 'At least one scope name; none twice (`duplicate`). Their order does not matter.' },
      expiresAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description:
          'Optional: an RFC 3339 date-time in the future, with `Z` or an offset (answered in UTC, to the millisecond). Null or left out: the key never expires.',
      },
    }, {
      description: 'Any other member is reported as `unknown_field`.',
      examples: [{ name: 'ci deploys', scopes: ['write'] }, { name: 'nightly report', scopes: ['read'], expiresAt: '2027-01-31T12:00:00Z' }],
    }),
  };
}
