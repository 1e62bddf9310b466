import type { VersionView } from '../versions/api-versions.ts';
import type { OpenApiOptions } from './options.ts';
import { type JsonObject, ref } from './schemas.ts';

// The response headers of the document's version, read from the version itself (VersionView.headers,
// what the pipeline sends), so the document cannot say other than what is answered.

type Versions = OpenApiOptions['versions'];

// Each header a version's answers may carry: its name in a response, its component, and what it says.
interface VersionHeader {
  readonly name: string;
  readonly component: string;
  schema(value: string, versions: Versions): JsonObject;
  describe(versions: Versions): string;
}

const regexQuoted = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const VERSION_HEADERS: Readonly<Record<string, VersionHeader>> = {
  'api-version': {
    name: 'Api-Version',
    component: 'ApiVersion',
    schema: (_, versions) => ({ type: 'string', enum: versions.served.map((view) => view.id) }),
    describe: ({ shown, defaultVersion }) =>
      `The API version this answer was made in: ${shown.id}, this document's, for a request made in it (named by \`Api-Version\`, ` +
      `pinned on its key, or SVC_API_VERSION); an answer made before the version is known (a 401 for a bad key) is made in ` +
      `SVC_API_VERSION (${defaultVersion}). A 400 \`unsupported_api_version\` carries none.`,
  },
  vary: {
    name: 'Vary',
    component: 'Vary',
    schema: (value) => ({ type: 'string', pattern: `(^|,\\s*)${regexQuoted(value)}(\\s*,|$)` }),
    describe: () => 'The answer depends on the `Api-Version` asked for (and on `Origin` too, when CORS is on).',
  },
  deprecation: {
    name: 'Deprecation',
    component: 'Deprecation',
    schema: (value) => ({ type: 'string', const: value }),
    describe: () => 'RFC 9745: this version is deprecated, since this moment (when this process learnt its sunset, SVC_API_SUNSET).',
  },
  sunset: {
    name: 'Sunset',
    component: 'Sunset',
    schema: (value) => ({ type: 'string', const: value }),
    describe: () => 'RFC 8594: when this version stops being served; after it, a request in it is 400 `unsupported_api_version`.',
  },
  link: {
    name: 'Link',
    component: 'DeprecationLink',
    schema: (value) => ({ type: 'string', const: value }),
    describe: () => 'RFC 9745 §3: where the deprecation is explained, the Versions section of the API\'s page.',
  },
};

// The headers `version` answers with, each with its value, in the order it sends them.
function sentBy(version: VersionView): { header: VersionHeader; value: string }[] {
  const sent: { header: VersionHeader; value: string }[] = [];
  for (let i = 0; i < version.headers.length; i += 2) {
    const name = version.headers[i] ?? '';
    const header = VERSION_HEADERS[name];
    if (header === undefined) throw new Error(`the version header ${name} is not described: describe it in src/openapi/version-headers.ts`);
    sent.push({ header, value: version.headers[i + 1] ?? '' });
  }
  return sent;
}

function headerObject(header: VersionHeader, value: string, versions: Versions, required: boolean): JsonObject {
  return { description: header.describe(versions), required, schema: header.schema(value, versions) };
}

/** `components.headers` of the version the document shows: Api-Version and Vary, and Deprecation, Sunset and its Link while it has a sunset. */
export function versionHeaderComponents(options: Pick<OpenApiOptions, 'versions'>): JsonObject {
  const { versions } = options;
  return Object.fromEntries(sentBy(versions.shown).map(({ header, value }) => [header.component, headerObject(header, value, versions, true)]));
}

/**
 * The version headers of a response of `status` that carries `headers` already: each of the version's,
 * but a Link the response has (a page's `next`, which then holds the deprecation link too). A 400 may
 * be `unsupported_api_version`, which carries none but Vary, so there they are not required.
 */
export function versionResponseHeaders(options: Pick<OpenApiOptions, 'versions'>, status: string, headers: JsonObject): JsonObject {
  const { versions } = options;
  const added: JsonObject = {};
  for (const { header, value } of sentBy(versions.shown)) {
    if (header.name in headers) continue;
    const required = status !== '400' || header.name === 'Vary';
    added[header.name] = required ? ref('headers', header.component) : headerObject(header, value, versions, false);
  }
  return added;
}

/**
 * A page's `Link` header of the document's version: the next page matching `next` (a pattern anchored
 * at both ends), sent always or only when a next page exists; while the version has a sunset, its
 * deprecation link comes first in the same field, so the header is always sent.
 */
export function pageLinkHeader(options: Pick<OpenApiOptions, 'versions'>, description: string, next: string, always: boolean): JsonObject {
  const deprecation = sentBy(options.versions.shown).find(({ header }) => header.name === 'Link');
  if (deprecation === undefined) return { description, required: always, schema: { type: 'string', pattern: next } };
  const pattern = `^${regexQuoted(deprecation.value)}(, ${next.slice(1, -1)})${always ? '' : '?'}$`;
  return { description: `${description} While this version has a sunset, its deprecation link comes first, in the same field.`, required: true, schema: { type: 'string', pattern } };
}
