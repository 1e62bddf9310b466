import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { databaseUrlProblem, redactDatabaseUrl } from './db/database-url.ts';
import { parseWebhookSettings, type WebhookSettings } from './webhooks/settings.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DURABILITIES = ['full', 'normal'] as const;
export type Durability = (typeof DURABILITIES)[number];

/** Who may call (docs/security.md): anyone (`off`), holders of API keys, or of access tokens. */
export const AUTH_MODES = ['off', 'keys', 'jwt'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** Where access tokens come from, for SVC_AUTH=jwt (empty strings otherwise). */
export interface JwtSettings {
  /** The `iss` a token must carry, exactly. */
  issuer: string;
  /** The `aud` a token must carry (one of its audiences). */
  audience: string;
  /** The issuer's JWKS; '' to find it in the issuer's OpenID discovery document. */
  jwksUrl: string;
}

/** Every setting of the service, parsed and validated (docs/configuration.md). */
export interface Config {
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
  jwt: JwtSettings;
  /** The metrics listener's port (0: any free port), or null when metrics are off. */
  metricsPort: number | null;
  metricsHost: string;
  /** SVC_WEBHOOK_TIMEOUT_MS, SVC_WEBHOOK_RETRY_SCHEDULE, SVC_WEBHOOK_ALLOW_PRIVATE (docs/webhooks.md). */
  webhooks: WebhookSettings;
}

/** Thrown for an invalid variable; its message is the one line start-up prints. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function fail(name: string, value: string, allowed: string): never {
  throw new ConfigError(`invalid ${name}=${JSON.stringify(value)}: expected ${allowed}`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const trimmed = raw.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(name, raw, `an integer from ${min} to ${max}`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) fail(name, raw, `one of ${allowed.join(', ')}`);
  return found;
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

function host(env: Env, name: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return '127.0.0.1';
  const value = raw.trim();
  const hostname = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  if (isIP(value) === 0 && !hostname.test(value)) fail(name, raw, 'an IP address or a host name');
  return value;
}

// Empty is SQLite. A bad URL is reported with its password hidden: the line goes to logs.
function databaseUrl(env: Env): string {
  const raw = (env['SVC_DATABASE_URL'] ?? '').trim();
  if (raw === '') return '';
  const problem = databaseUrlProblem(raw);
  if (problem !== null) fail('SVC_DATABASE_URL', redactDatabaseUrl(raw), `postgres://user:password@host:port/database (${problem})`);
  return raw;
}

// Empty is off; otherwise a port like SVC_PORT's.
function metricsPort(env: Env): number | null {
  const raw = env['SVC_METRICS_PORT'];
  if (raw === undefined || raw === '') return null;
  try {
    return integer(env, 'SVC_METRICS_PORT', 0, 0, 65535);
  } catch {
    return fail('SVC_METRICS_PORT', raw, 'an integer from 0 to 65535 (0: any free port), or empty for no metrics listener');
  }
}

const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

// Metrics are never served on the API's listener: the same fixed port on the same (or an
// every-address) host is refused here, in words, rather than as EADDRINUSE at start-up.
function checkMetricsPort(config: Config): Config {
  const { port, metricsPort: metrics } = config;
  const sameHost = config.host.toLowerCase() === config.metricsHost.toLowerCase() || WILDCARDS.has(config.host) || WILDCARDS.has(config.metricsHost);
  if (metrics !== null && metrics !== 0 && metrics === port && sameHost) {
    throw new ConfigError(
      `invalid SVC_METRICS_PORT=${JSON.stringify(String(metrics))}: expected another port than SVC_PORT (${port}) ` +
        `on SVC_METRICS_HOST ${config.metricsHost}; metrics have their own listener, never the API's`,
    );
  }
  return config;
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

function text(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

function apiToken(env: Env): string {
  const raw = env['SVC_API_TOKEN'] ?? '';
  // A token is sent in a header, so it must be visible ASCII; a short one is guessable.
  if (raw !== '' && !/^[\x21-\x7e]{16,512}$/.test(raw)) {
    fail('SVC_API_TOKEN', '<redacted>', '16..512 visible ASCII characters, or empty to turn tokens off');
  }
  return raw;
}

// http: only for a host that never leaves this machine (a local provider, tests); the token's keys
// must not travel where anyone on the path could replace them.
function providerUrl(env: Env, name: string, required: boolean): string {
  const raw = (env[name] ?? '').trim();
  if (raw === '') {
    if (required) fail(name, raw, 'an https:// URL (http:// only for a loopback host), required with SVC_AUTH=jwt');
    return '';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(name, raw, 'an https:// URL (http:// only for a loopback host)');
  }
  if (!isProviderUrl(url)) fail(name, raw, 'an https:// URL (http:// only for 127.0.0.1, [::1] or localhost)');
  return raw;
}

/** Whether an identity provider's keys may be fetched from `url`: https, or http on a loopback host. */
export function isProviderUrl(url: URL): boolean {
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname.toLowerCase());
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
}

function jwtSettings(env: Env, auth: AuthMode): JwtSettings {
  const audience = (env['SVC_JWT_AUDIENCE'] ?? '').trim();
  if (auth === 'jwt' && audience === '') fail('SVC_JWT_AUDIENCE', audience, 'the audience tokens are issued for, required with SVC_AUTH=jwt');
  return { issuer: providerUrl(env, 'SVC_JWT_ISSUER', auth === 'jwt'), audience, jwksUrl: providerUrl(env, 'SVC_JWT_JWKS_URL', false) };
}

// API keys and access tokens replace the one shared token; both at once would leave a back door.
function checkAuth(config: Config): Config {
  if (config.auth !== 'off' && config.apiToken !== '') {
    throw new ConfigError(`invalid SVC_AUTH=${JSON.stringify(config.auth)}: expected off while SVC_API_TOKEN is set (unset SVC_API_TOKEN to use ${config.auth})`);
  }
  return config;
}

// node:http refuses a headers timeout longer than the request timeout; say so in our own words.
function checkTimeouts(config: Config): Config {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(
      `invalid SVC_HEADERS_TIMEOUT_MS=${JSON.stringify(String(config.headersTimeoutMs))}: ` +
        `expected at most SVC_REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`,
    );
  }
  return config;
}

/** Parses the SVC_* variables of `env`; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  const auth = oneOf(env, 'SVC_AUTH', 'off', AUTH_MODES);
  const config = checkTimeouts({
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
    jwt: jwtSettings(env, auth),
    metricsPort: metricsPort(env),
    metricsHost: host(env, 'SVC_METRICS_HOST'),
    webhooks: parseWebhookSettings(env),
  });
  return checkAuth(checkMetricsPort(config));
}
