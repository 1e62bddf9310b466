import type { Config } from '../config.ts';
import type { Access } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';
import type { ApiVersions, VersionView } from '../versions/api-versions.ts';

/**
 * How callers prove who they are, as the service is configured: `off` (SVC_AUTH=off; `token` when
 * SVC_API_TOKEN is set, so every POST, PATCH and DELETE needs it), `keys` (API keys) or `jwt` (access
 * tokens of the OpenID Connect provider `issuer`, issued for `audience`).
 */
export type DocumentedAuth = { mode: 'off'; token: boolean } | { mode: 'keys' } | { mode: 'jwt'; issuer: string; audience: string };

/** One route the app serves and who may call it, as the router holds it. */
export interface ServedRoute {
  method: string;
  pattern: string;
  access: Access;
}

/** The API versions a document knows: the one it describes, those served beside it, and SVC_API_VERSION. */
export interface DocumentedVersions {
  /** The version whose shapes and headers the document describes (its `info.version`). */
  shown: VersionView;
  /** Every version the service knows (`all`, oldest first: what a stored pin may name) and how each is negotiated. */
  api: ApiVersions;
  /** The versions served when the document was made, newest first. */
  served: readonly VersionView[];
  /** SVC_API_VERSION: the version of a request that names none and whose key pins none. */
  defaultVersion: string;
}

/** What the document says depends on: who may call, rate limiting, the routes and resources served, and the API version. */
export interface OpenApiOptions {
  auth: DocumentedAuth;
  /** SVC_RATE_LIMIT is on: every operation but readiness may answer 429. */
  rateLimited: boolean;
  /**
   * Every route served (HEAD aside), with its access: an operation is documented only when its route
   * is here, and the scope it states is the route's own, so the document follows the router.
   */
  routes: readonly ServedRoute[];
  /** The resources served (the app's `resources`), as the newest version describes them: their schemas, operations and events. */
  resources: readonly Resource[];
  versions: DocumentedVersions;
}

/**
 * The options of the document of `version` (SVC_API_VERSION's when left out) for a service running
 * with `config`, serving `routes` (the router's table), `resources` and `versions` (the app's).
 * Throws when `version` is named by its id and not served.
 */
export function openApiOptionsFor(
  config: Pick<Config, 'apiToken' | 'rateLimit' | 'auth' | 'jwt' | 'versions'>,
  routes: readonly ServedRoute[],
  resources: readonly Resource[],
  versions: ApiVersions,
  version: string | VersionView = config.versions.defaultVersion,
): OpenApiOptions {
  const shown = typeof version === 'string' ? versions.served(version) : version;
  if (shown === undefined) throw new Error(`the API version ${String(version)} is not served`);
  const documented = { shown, api: versions, served: versions.servedAt(), defaultVersion: config.versions.defaultVersion };
  return { auth: documentedAuth(config), rateLimited: config.rateLimit > 0, routes, resources, versions: documented };
}

function documentedAuth(config: Pick<Config, 'apiToken' | 'auth' | 'jwt'>): DocumentedAuth {
  if (config.auth === 'keys') return { mode: 'keys' };
  if (config.auth === 'jwt') return { mode: 'jwt', issuer: config.jwt.issuer, audience: config.jwt.audience };
  return { mode: 'off', token: config.apiToken !== '' };
}

/** The access of the route `method` `pattern`, or undefined when the service does not serve it. */
export function accessOf(options: OpenApiOptions, method: string, pattern: string): Access | undefined {
  return options.routes.find((route) => route.method === method && route.pattern === pattern)?.access;
}
