import type { OpenApiOptions } from './options.ts';
import { closedObject, type JsonObject, ref } from './schemas.ts';

// The API versions as the document shows them: what GET /api/versions answers, and the `apiVersion`
// a key or a webhook is pinned to.

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';

/**
 * The `apiVersion` member of a request body (`request`: a version served) or of a representation (a
 * version the service knows: a pin may outlive its version's sunset), said with `description`.
 */
export function pinnedVersion({ versions }: Pick<OpenApiOptions, 'versions'>, request: boolean, description: string): JsonObject {
  const ids = (request ? versions.served : versions.api.all).map((view) => view.id);
  return { type: 'string', enum: ids, description: request ? `${description} Another value is \`invalid_enum\`.` : description };
}

/** A list of `versions` as GET /api/versions answers it. */
export function versionsExample({ versions }: Pick<OpenApiOptions, 'versions'>): JsonObject {
  const listed = versions.served.map((view) => ({ version: view.id, summary: view.summary, sunset: view.sunsetAt === null ? null : new Date(view.sunsetAt).toISOString() }));
  return { versions: listed, default: versions.defaultVersion };
}

/** `components.schemas` of GET /api/versions: Versions, and ServedVersion, one of its entries. */
export function versionSchemas(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  const ids = options.versions.served.map((view) => view.id);
  return {
    ServedVersion: closedObject(['version', 'summary', 'sunset'], {
      version: { type: 'string', pattern: DATE, description: 'The version: a date, YYYY-MM-DD; send it in `Api-Version`.' },
      summary: { type: 'string', description: 'What it changed from the version before, for people.' },
      sunset: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When it stops being served (RFC 3339, UTC), or null: it is not going away. Until then its answers carry `Deprecation` and `Sunset`.',
      },
    }),
    Versions: closedObject(['versions', 'default'], {
      versions: { type: 'array', minItems: 1, items: ref('schemas', 'ServedVersion'), description: 'Every version served, newest first; those past their sunset are left out.' },
      default: { type: 'string', enum: ids, description: 'SVC_API_VERSION: the version of a request that names none and whose API key pins none.' },
    }, { description: 'The API versions served, the same in every version.', examples: [versionsExample(options)] }),
  };
}
