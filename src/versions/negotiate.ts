import { HttpError } from '../http/errors.ts';
import type { ApiVersions, VersionView } from './api-versions.ts';

/** The request header that names a version, and the query parameter of the documents (for tools that cannot send headers). */
export const VERSION_HEADER = 'api-version';
export const VERSION_PARAMETER = 'version';

// Readiness, the list of versions and preflights answer whatever the key's or default version: a
// probe must not fail, and a client must be able to learn what is served.
const ALWAYS_ANSWERED = new Set(['/api/ping', '/api/versions']);

/** The 400 of a version that is not served: it lists those that are, newest first. */
export function unsupportedVersion(versions: ApiVersions, detail: string, now = Date.now()): HttpError {
  return new HttpError('unsupported_api_version', { detail, members: { supportedVersions: versions.servedAt(now).map((view) => view.id) } });
}

/** How a request's version is chosen (docs/versions.md, Which version a request gets). */
export interface Negotiator {
  /** The version the request names (Api-Version, or `?version=` on the documents), checked; undefined when it names none. 400 when it is not served. */
  named(path: string, header: string | string[] | undefined, query: URLSearchParams): VersionView | undefined;
  /** The version of a request that names none: its caller's pin, else SVC_API_VERSION; 400 when that is past its sunset (readiness and GET /api/versions: the newest). */
  unnamed(path: string, pinned: string | undefined): VersionView;
  /** The version of answers made before the version is known (a 401 for a bad key, a 413): SVC_API_VERSION, or the newest once it is past its sunset. */
  fallback(): VersionView;
}

/** The negotiator of `versions`, with `defaultVersion` (SVC_API_VERSION). */
export function negotiator(versions: ApiVersions, defaultVersion: string): Negotiator {
  const fallback = (): VersionView => versions.served(defaultVersion) ?? versions.newest;
  return {
    named(path, header, query) {
      const documents = path === '/api/openapi.json' || path === '/api/docs';
      const raw = (documents ? query.get(VERSION_PARAMETER) : null) ?? header;
      if (raw === undefined) return undefined;
      const id = Array.isArray(raw) ? raw.join(', ') : raw.trim();
      const view = versions.served(id);
      if (view === undefined) throw unsupportedVersion(versions, `The API version ${JSON.stringify(id.slice(0, 40))} is not served; send one of supportedVersions.`);
      return view;
    },
    unnamed(path, pinned) {
      const id = pinned ?? defaultVersion;
      const view = versions.served(id);
      if (view !== undefined) return view;
      if (ALWAYS_ANSWERED.has(path)) return versions.newest;
      const whose = pinned === undefined ? 'The default API version (SVC_API_VERSION)' : "Your API key's version";
      throw unsupportedVersion(versions, `${whose}, ${id}, is past its sunset: send Api-Version with one of supportedVersions, or move the key (PATCH /api/keys/{id}).`);
    },
    fallback,
  };
}
