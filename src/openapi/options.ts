import type { Config } from '../config.ts';
import type { Access } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';

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

/** What the document says depends on: who may call, rate limiting, and the routes served. */
export interface OpenApiOptions {
  auth: DocumentedAuth;
  /** SVC_RATE_LIMIT is on: every operation but readiness may answer 429. */
  rateLimited: boolean;
  /**
   * Every route served (HEAD aside), with its access: an operation is documented only when its route
   * is here, and the scope it states is the route's own, so the document follows the router.
   */
  routes: readonly ServedRoute[];
  /** The resources served (the app's `resources`): their schemas, operations and events. */
  resources: readonly Resource[];
}

/** The options of the document of a service running with `config` and serving `routes` (the router's table) and `resources` (the app's). */
export function openApiOptionsFor(
  config: Pick<Config, 'apiToken' | 'rateLimit' | 'auth' | 'jwt'>,
  routes: readonly ServedRoute[],
  resources: readonly Resource[],
): OpenApiOptions {
  return { auth: documentedAuth(config), rateLimited: config.rateLimit > 0, routes, resources };
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
