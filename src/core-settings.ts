import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { databaseUrlProblem, redactDatabaseUrl } from './db/database-url.ts';
import {
  AUTH_MODES, type AuthMode, ConfigError, DURABILITIES, type Durability, type Env, fail, host, integer, LOG_LEVELS, type LogLevel, oneOf, text,
} from './shared/settings.ts';

/** The core's settings (docs/configuration.md): the listener, the database, limits, callers. src/config.ts adds the later parts'. */
export interface CoreSettings {
  port: number;
  host: string;
  dbPath: string;
  /** A PostgreSQL connection URL, or '' for SQLite at `dbPath`. Contains a password: never log it as it is. */
  databaseUrl: string;
  /** PostgreSQL connections per process. */
  dbPoolSize: number;
  durability: Durability;
  workers: number;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  shutdownTimeoutMs: number;
  trustProxy: readonly string[];
  /** Origins whose pages may call the API from a browser (docs/security.md, Browsers): `*` for any, [] for none (CORS off). */
  corsOrigins: '*' | readonly string[];
  rateLimit: number;
  rateLimitWindowS: number;
  apiToken: string;
  auth: AuthMode;
}

function workers(env: Env): number {
  const raw = env['SVC_WORKERS'];
  if (raw !== undefined && raw.trim().toLowerCase() === 'auto') return availableParallelism();
  try {
    return integer(env, 'SVC_WORKERS', 1, 1, 64);
  } catch {
    return fail('SVC_WORKERS', raw ?? '', 'an integer from 1 to 64, or auto');
  }
}

// Empty is SQLite. A bad URL is reported with its password hidden: the line goes to logs.
function databaseUrl(env: Env): string {
  const raw = (env['SVC_DATABASE_URL'] ?? '').trim();
  if (raw === '') return '';
  const problem = databaseUrlProblem(raw);
  if (problem !== null) fail('SVC_DATABASE_URL', redactDatabaseUrl(raw), `postgres://user:password@host:port/database (${problem})`);
  return raw;
}

/** Accepts `a.b.c.d`, `a.b.c.d/n`, IPv6 and IPv6/n entries. */
function trustProxy(env: Env): string[] {
  const raw = env['SVC_TRUST_PROXY'] ?? '';
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const entry = part.trim();
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) {
      fail('SVC_TRUST_PROXY', raw, 'a comma-separated list of IP addresses or CIDR ranges');
    }
    return entry;
  });
}

// Why one entry of SVC_CORS_ORIGINS is not an origin, or null when it is one.
function originProblem(entry: string): string | null {
  if (entry === '') return 'an entry is empty';
  if (entry === '*') return '* is beside other origins';
  if (entry.includes('*')) return `${entry} has a wildcard: list each origin`;
  if (entry.toLowerCase() === 'null') return 'null is the origin of sandboxed and file: pages, which anyone can make';
  if (/[\s?#]/.test(entry)) return `${entry} has white space, a query or a fragment`;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `${entry} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${entry} is not http: or https:`;
  if (url.username !== '' || url.password !== '') return `${entry} has user info`;
  // A lone trailing slash is how an address bar writes an origin; any other path is not an origin.
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]*\/./i.test(entry)) return `${entry} has a path`;
  return null;
}

// RFC 6454 §6.2: an origin is compared as its ASCII serialization, which the URL parser makes
// (scheme and host in lower case, an IDN host in punycode, no default port, no path), as browsers
// send it in `Origin`.
function corsOrigins(env: Env): '*' | readonly string[] {
  const raw = env['SVC_CORS_ORIGINS'] ?? '';
  if (raw.trim() === '') return [];
  if (raw.trim() === '*') return '*';
  const origins = new Set<string>();
  for (const part of raw.split(',')) {
    const entry = part.trim();
    const problem = originProblem(entry);
    if (problem !== null) fail('SVC_CORS_ORIGINS', raw, `comma-separated origins such as https://app.example.com (scheme://host[:port]), or * alone (${problem})`);
    origins.add(new URL(entry).origin);
  }
  return [...origins];
}

function apiToken(env: Env): string {
  const raw = env['SVC_API_TOKEN'] ?? '';
  // A token is sent in a header, so it must be visible ASCII; a short one is guessable.
  if (raw !== '' && !/^[\x21-\x7e]{16,512}$/.test(raw)) {
    fail('SVC_API_TOKEN', '<redacted>', '16..512 visible ASCII characters, or empty to turn tokens off');
  }
  return raw;
}

/** Parses the core's SVC_* variables of `env`, each on its own; checkCoreSettings relates them once every part is read. */
export function parseCoreSettings(env: Env, auth: AuthMode): CoreSettings {
  return {
    port: integer(env, 'SVC_PORT', 3000, 0, 65535),
    host: host(env, 'SVC_HOST'),
    dbPath: text(env, 'SVC_DB_PATH', 'data/app.db'),
    databaseUrl: databaseUrl(env),
    dbPoolSize: integer(env, 'SVC_DB_POOL_SIZE', 10, 1, 1_000),
    durability: oneOf(env, 'SVC_DB_DURABILITY', 'full', DURABILITIES),
    workers: workers(env),
    logLevel: oneOf(env, 'SVC_LOG_LEVEL', 'info', LOG_LEVELS),
    bodyLimitBytes: integer(env, 'SVC_BODY_LIMIT_BYTES', 16_384, 1, 64 * 1024 * 1024),
    headersTimeoutMs: integer(env, 'SVC_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'SVC_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'SVC_KEEP_ALIVE_TIMEOUT_MS', 65_000, 100, 3_600_000),
    maxConnections: integer(env, 'SVC_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    shutdownTimeoutMs: integer(env, 'SVC_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustProxy: trustProxy(env),
    corsOrigins: corsOrigins(env),
    rateLimit: integer(env, 'SVC_RATE_LIMIT', 0, 0, 1_000_000_000),
    rateLimitWindowS: integer(env, 'SVC_RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    apiToken: apiToken(env),
    auth,
  };
}

/** SVC_AUTH, read first: other parts' settings depend on it (access tokens need their issuer). */
export function parseAuthMode(env: Env): AuthMode {
  return oneOf(env, 'SVC_AUTH', 'off', AUTH_MODES);
}

/** node:http refuses a headers timeout longer than the request timeout; this says so in our own words. */
export function checkTimeouts(settings: CoreSettings): void {
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    throw new ConfigError(
      `invalid SVC_HEADERS_TIMEOUT_MS=${JSON.stringify(String(settings.headersTimeoutMs))}: ` +
        `expected at most SVC_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs})`,
    );
  }
}

/** API keys and access tokens replace the one shared token; both at once would leave a back door. */
export function checkAuth(settings: CoreSettings): void {
  if (settings.auth !== 'off' && settings.apiToken !== '') {
    throw new ConfigError(`invalid SVC_AUTH=${JSON.stringify(settings.auth)}: expected off while SVC_API_TOKEN is set (unset SVC_API_TOKEN to use ${settings.auth})`);
  }
}
