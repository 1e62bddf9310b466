import { createApp } from '../../src/app.ts';
import { refused } from '../../src/callers/caller.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log/logger.ts';
import { buildOpenApiDocument, openApiOptionsFor } from '../../src/openapi/document.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { GADGETS, GADGETS_TABLE, RESOURCES } from '../support/resources.ts';

// The document of each mode, as a service configured so would serve it: built from the routes of a
// real app (on an in-memory database), so each operation's scope is its route's own.
type Json = Record<string, unknown>;

/** The settings of each mode the document describes; `jwt` names a provider, `token` a token. */
export const MODES = {
  off: {},
  token: { SVC_API_TOKEN: 'a-token-long-enough-1234' },
  keys: { SVC_AUTH: 'keys' },
  jwt: { SVC_AUTH: 'jwt', SVC_JWT_ISSUER: 'https://id.example.com/realms/acme', SVC_JWT_AUDIENCE: 'https://api.example.com' },
} as const satisfies Record<string, Record<string, string>>;

/** A mode of MODES. */
export type Mode = keyof typeof MODES;

type App = ReturnType<typeof createApp>;

// The routes and versions of an app with `env` (serving `resources`).
function appFor(env: Record<string, string>, resources: readonly Resource[]): Pick<App, 'routes' | 'versions'> {
  const db = openDatabase(':memory:');
  try {
    migrate(db);
    if (resources.includes(GADGETS)) db.exec(GADGETS_TABLE.sqlite);
    // jwt's own check comes with the access-token work; the routes do not depend on it.
    const credentials = { identify: () => refused('unknown') };
    const app = createApp({ db, config: loadConfig(env), logger: createLogger('silent'), credentials, resources });
    return { routes: [...app.routes], versions: app.versions };
  } finally {
    db.close();
  }
}

/** The routes an app with `env` serves (serving `resources`), with their access. */
export function routesFor(env: Record<string, string>, resources: readonly Resource[] = RESOURCES): App['routes'] {
  return appFor(env, resources).routes;
}

/** The API versions an app with `env` serves (those of src/registry.ts), oldest first. */
export function versionsFor(env: Record<string, string> = {}): App['versions'] {
  return appFor(env, RESOURCES).versions;
}

/** The document a service with `env` serves (serving `resources`) in API `version` (SVC_API_VERSION's when left out). */
export function documentFor(env: Record<string, string>, resources: readonly Resource[] = RESOURCES, version?: string): Json {
  const { routes, versions } = appFor(env, resources);
  return buildOpenApiDocument(openApiOptionsFor(loadConfig(env), routes, resources, versions, version));
}

/** The document of `mode`, rate limiting on (so every response is listed) or off; serving `resources`, in API `version` (the default's when left out). */
export function documentOf(mode: Mode, rateLimited = true, resources: readonly Resource[] = RESOURCES, version?: string): Json {
  return documentFor({ ...MODES[mode], SVC_RATE_LIMIT: rateLimited ? '100' : '0' }, resources, version);
}

/** The id of every API version served by default, oldest first: each has its own document. */
export const VERSION_IDS: readonly string[] = versionsFor().all.map((view) => view.id);
