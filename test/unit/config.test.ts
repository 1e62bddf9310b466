import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** Asserts `env` is refused with one line naming the variable, the value and what is allowed. */
function assertRefused(env: Record<string, string>, name: string, shown: string, allowed: RegExp): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.ok(!error.message.includes('\n'), 'the message is one line');
      assert.ok(error.message.includes(name), `"${error.message}" names ${name}`);
      assert.ok(error.message.includes(JSON.stringify(shown)), `"${error.message}" shows the value ${shown}`);
      assert.match(error.message, allowed);
      return true;
    },
  );
}

test('an empty environment gives the documented defaults', () => {
  assert.deepEqual(loadConfig({}), {
    port: 3000,
    host: '127.0.0.1',
    dbPath: 'data/app.db',
    databaseUrl: '',
    dbPoolSize: 10,
    durability: 'full',
    workers: 1,
    logLevel: 'info',
    bodyLimitBytes: 16_384,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 65_000,
    maxConnections: 10_000,
    shutdownTimeoutMs: 10_000,
    trustProxy: [],
    corsOrigins: [],
    rateLimit: 0,
    rateLimitWindowS: 60,
    apiToken: '',
    auth: 'off',
    jwt: { issuer: '', audience: '', jwksUrl: '' },
    metricsPort: null,
    metricsHost: '127.0.0.1',
    events: { retentionMs: 168 * 3_600_000, streamsPerCaller: 5, maxStreams: 5_000 },
    webhooks: { timeoutMs: 10_000, retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], allowPrivate: false },
    versions: { defaultVersion: '2026-11-21', sunsets: new Map(), sunsetsAnnouncedAt: loadConfig({}).versions.sunsetsAnnouncedAt, defaultCurrency: 'EUR' },
  });
});

test('an empty string means the default, for every variable', () => {
  const names = [
    'SVC_PORT', 'SVC_HOST', 'SVC_DB_PATH', 'SVC_DB_DURABILITY', 'SVC_WORKERS', 'SVC_LOG_LEVEL',
    'SVC_BODY_LIMIT_BYTES', 'SVC_HEADERS_TIMEOUT_MS', 'SVC_REQUEST_TIMEOUT_MS', 'SVC_KEEP_ALIVE_TIMEOUT_MS',
    'SVC_MAX_CONNECTIONS', 'SVC_SHUTDOWN_TIMEOUT_MS', 'SVC_TRUST_PROXY', 'SVC_RATE_LIMIT',
    'SVC_RATE_LIMIT_WINDOW_S', 'SVC_API_TOKEN', 'SVC_METRICS_PORT', 'SVC_METRICS_HOST', 'SVC_DATABASE_URL', 'SVC_DB_POOL_SIZE',
    'SVC_EVENTS_RETENTION', 'SVC_STREAMS_PER_CALLER', 'SVC_MAX_STREAMS', 'SVC_API_VERSION', 'SVC_API_SUNSET', 'SVC_DEFAULT_CURRENCY',
  ];
  const empty = Object.fromEntries(names.map((name) => [name, '']));
  assert.deepEqual(loadConfig(empty), loadConfig({}));
});

test('variables that are not SVC_* are ignored', () => {
  assert.deepEqual(loadConfig({ PORT: 'abc', HOST: '!', SVC_UNKNOWN: 'x' }), loadConfig({}));
});

// [variable, config key, min, max]: every integer variable, with its range.
const INTEGERS = [
  ['SVC_PORT', 'port', 0, 65_535],
  ['SVC_BODY_LIMIT_BYTES', 'bodyLimitBytes', 1, 64 * 1024 * 1024],
  ['SVC_HEADERS_TIMEOUT_MS', 'headersTimeoutMs', 100, 600_000],
  ['SVC_REQUEST_TIMEOUT_MS', 'requestTimeoutMs', 100, 3_600_000],
  ['SVC_KEEP_ALIVE_TIMEOUT_MS', 'keepAliveTimeoutMs', 100, 3_600_000],
  ['SVC_MAX_CONNECTIONS', 'maxConnections', 1, 1_000_000],
  ['SVC_SHUTDOWN_TIMEOUT_MS', 'shutdownTimeoutMs', 0, 600_000],
  ['SVC_RATE_LIMIT', 'rateLimit', 0, 1_000_000_000],
  ['SVC_RATE_LIMIT_WINDOW_S', 'rateLimitWindowS', 1, 86_400],
  ['SVC_DB_POOL_SIZE', 'dbPoolSize', 1, 1_000],
] as const;

// The request timeout must stay at or above the headers timeout, so test each alone with room for it.
function envWith(name: string, value: string): Record<string, string> {
  if (name === 'SVC_HEADERS_TIMEOUT_MS') return { [name]: value, SVC_REQUEST_TIMEOUT_MS: '3600000' };
  if (name === 'SVC_REQUEST_TIMEOUT_MS') return { [name]: value, SVC_HEADERS_TIMEOUT_MS: '100' };
  return { [name]: value };
}

for (const [name, key, min, max] of INTEGERS) {
  test(`${name} accepts integers from ${min} to ${max}`, () => {
    assert.equal(loadConfig(envWith(name, String(min)))[key], min);
    assert.equal(loadConfig(envWith(name, String(max)))[key], max);
    assert.equal(loadConfig(envWith(name, ` ${min + 1} `))[key], min + 1, 'surrounding white space is ignored');
  });

  test(`${name} refuses non-numbers, negatives, fractions and values out of range`, () => {
    const allowed = new RegExp(`an integer from ${min} to ${max}`);
    const bad = ['abc', '12abc', '-1', '1.5', '1e3', '0x10', '+5', String(max + 1), '99999999999999999999', 'Infinity', 'NaN', ' '];
    if (min > 0) bad.push(String(min - 1));
    for (const value of bad) assertRefused(envWith(name, value), name, value, allowed);
  });
}

test('SVC_PORT=0 asks for any free port', () => {
  assert.equal(loadConfig({ SVC_PORT: '0' }).port, 0);
});

test('SVC_HOST takes IPv4, IPv6 and host names, and refuses anything else', () => {
  for (const host of ['0.0.0.0', '::', '::1', '10.1.2.3', 'localhost', 'api.example.com']) {
    assert.equal(loadConfig({ SVC_HOST: host }).host, host);
  }
  for (const bad of ['not a host', 'http://localhost', 'host:3000', '-leading.example', '1.2.3.4/24']) {
    assertRefused({ SVC_HOST: bad }, 'SVC_HOST', bad, /an IP address or a host name/);
  }
});

test('SVC_DB_PATH is taken as given', () => {
  assert.equal(loadConfig({ SVC_DB_PATH: '/var/lib/svc/app.db' }).dbPath, '/var/lib/svc/app.db');
  assert.equal(loadConfig({ SVC_DB_PATH: ':memory:' }).dbPath, ':memory:');
});

test('SVC_DATABASE_URL takes postgres:// and postgresql:// URLs, as given', () => {
  for (const url of [
    'postgres://svc:secret@127.0.0.1:5432/svc',
    'postgresql://svc:s%40cret@db.internal/svc?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem',
    'postgres://svc@[::1]:5432/svc',
    'postgres://svc:secret@localhost/svc?host=/run/postgresql',
  ]) {
    assert.equal(loadConfig({ SVC_DATABASE_URL: url }).databaseUrl, url);
  }
});

test('SVC_DATABASE_URL refuses what is not a PostgreSQL URL, and never prints its password', () => {
  const bad: [string, RegExp][] = [
    ['mysql://svc:hunter2pass@db/svc', /the scheme must be postgres/],
    ['postgres:///svc', /no host/],
    ['postgres://svc:hunter2pass@/svc', /not a URL/],
    ['postgres://svc:hunter2pass@db/svc/extra', /one database name/],
    ['postgres://svc:hunter2pass@db:99999/svc', /not a URL/],
    ['data/app.db', /not a URL/],
  ];
  for (const [value, reason] of bad) {
    assert.throws(() => loadConfig({ SVC_DATABASE_URL: value }), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^invalid SVC_DATABASE_URL=/);
      assert.match(error.message, reason);
      assert.ok(!error.message.includes('hunter2pass'), error.message);
      return true;
    });
  }
});

test('SVC_DB_DURABILITY is full or normal, in any letter case', () => {
  assert.equal(loadConfig({ SVC_DB_DURABILITY: 'normal' }).durability, 'normal');
  assert.equal(loadConfig({ SVC_DB_DURABILITY: 'FULL' }).durability, 'full');
  for (const bad of ['off', 'fsync', '1', 'extra']) {
    assertRefused({ SVC_DB_DURABILITY: bad }, 'SVC_DB_DURABILITY', bad, /one of full, normal/);
  }
});

test('SVC_WORKERS is an integer from 1 to 64, or auto for one per CPU', () => {
  assert.equal(loadConfig({ SVC_WORKERS: '4' }).workers, 4);
  assert.equal(loadConfig({ SVC_WORKERS: '64' }).workers, 64);
  assert.equal(loadConfig({ SVC_WORKERS: 'auto' }).workers, availableParallelism());
  assert.equal(loadConfig({ SVC_WORKERS: 'AUTO' }).workers, availableParallelism());
  for (const bad of ['0', '65', '-2', '1.5', 'many', 'automatic']) {
    assertRefused({ SVC_WORKERS: bad }, 'SVC_WORKERS', bad, /an integer from 1 to 64, or auto/);
  }
});

test('SVC_LOG_LEVEL is one of the pino levels or silent', () => {
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
    assert.equal(loadConfig({ SVC_LOG_LEVEL: level }).logLevel, level);
  }
  assert.equal(loadConfig({ SVC_LOG_LEVEL: 'Debug' }).logLevel, 'debug');
  for (const bad of ['verbose', 'warning', '30', 'none']) {
    assertRefused({ SVC_LOG_LEVEL: bad }, 'SVC_LOG_LEVEL', bad, /one of fatal, error, warn, info, debug, trace, silent/);
  }
});

test('SVC_TRUST_PROXY takes comma-separated IPs and CIDR ranges', () => {
  const value = '10.0.0.1, 192.168.0.0/16,::1,fd00::/8';
  assert.deepEqual(loadConfig({ SVC_TRUST_PROXY: value }).trustProxy, ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8']);
  assert.deepEqual(loadConfig({ SVC_TRUST_PROXY: '  ' }).trustProxy, []);
});

test('SVC_TRUST_PROXY refuses host names, bad prefixes and empty entries', () => {
  const bad = ['localhost', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/x', '10.0.0.1,,10.0.0.2', '10.0.0.1,', '300.1.1.1'];
  for (const value of bad) {
    assertRefused({ SVC_TRUST_PROXY: value }, 'SVC_TRUST_PROXY', value, /comma-separated list of IP addresses or CIDR ranges/);
  }
});

test('SVC_API_TOKEN takes 16..512 visible ASCII characters', () => {
  const token = 'A1b2C3d4E5f6G7h8-_.~';
  assert.equal(loadConfig({ SVC_API_TOKEN: token }).apiToken, token);
  assert.equal(loadConfig({ SVC_API_TOKEN: 'x'.repeat(512) }).apiToken, 'x'.repeat(512));
});

test('a bad SVC_API_TOKEN is refused without echoing the secret', () => {
  for (const bad of ['short', 'has a space in it here', 'x'.repeat(513), 'tøken-with-non-ascii-1234']) {
    assertRefused({ SVC_API_TOKEN: bad }, 'SVC_API_TOKEN', '<redacted>', /16\.\.512 visible ASCII characters/);
    assert.throws(() => loadConfig({ SVC_API_TOKEN: bad }), (error: Error) => !error.message.includes(bad));
  }
});

test('the headers timeout may not exceed the request timeout (node:http refuses it)', () => {
  const equal = loadConfig({ SVC_HEADERS_TIMEOUT_MS: '5000', SVC_REQUEST_TIMEOUT_MS: '5000' });
  assert.equal(equal.headersTimeoutMs, 5000);
  assertRefused(
    { SVC_HEADERS_TIMEOUT_MS: '20000', SVC_REQUEST_TIMEOUT_MS: '10000' },
    'SVC_HEADERS_TIMEOUT_MS',
    '20000',
    /at most SVC_REQUEST_TIMEOUT_MS \(10000\)/,
  );
  // Against the default request timeout (30 s) too.
  assertRefused({ SVC_HEADERS_TIMEOUT_MS: '30001' }, 'SVC_HEADERS_TIMEOUT_MS', '30001', /at most SVC_REQUEST_TIMEOUT_MS \(30000\)/);
});

test('the first invalid variable is the one reported', () => {
  assertRefused({ SVC_PORT: 'abc', SVC_LOG_LEVEL: 'loud' }, 'SVC_PORT', 'abc', /an integer from 0 to 65535/);
});

test('SVC_METRICS_PORT: empty is off, 0 is any free port, else a port number', () => {
  assert.equal(loadConfig({}).metricsPort, null);
  assert.equal(loadConfig({ SVC_METRICS_PORT: '' }).metricsPort, null);
  assert.equal(loadConfig({ SVC_METRICS_PORT: '0' }).metricsPort, 0);
  assert.equal(loadConfig({ SVC_METRICS_PORT: ' 9464 ' }).metricsPort, 9464);
  assert.equal(loadConfig({ SVC_METRICS_PORT: '65535' }).metricsPort, 65_535);
  for (const bad of ['abc', '-1', '1.5', '65536', '0x10', '+5', 'off', ' ', '9464/metrics']) {
    assertRefused({ SVC_METRICS_PORT: bad }, 'SVC_METRICS_PORT', bad, /an integer from 0 to 65535 \(0: any free port\), or empty/);
  }
});

test('SVC_METRICS_HOST defaults to loopback and takes IPv4, IPv6 and host names only', () => {
  assert.equal(loadConfig({ SVC_METRICS_PORT: '9464' }).metricsHost, '127.0.0.1');
  for (const host of ['0.0.0.0', '::1', '10.1.2.3', 'localhost', 'metrics.internal']) {
    assert.equal(loadConfig({ SVC_METRICS_HOST: host }).metricsHost, host);
  }
  for (const bad of ['not a host', 'http://localhost', 'host:9464', '1.2.3.4/24']) {
    assertRefused({ SVC_METRICS_HOST: bad }, 'SVC_METRICS_HOST', bad, /an IP address or a host name/);
  }
});

test('the metrics listener is refused on the API port of the same host, or of an every-address host', () => {
  const why = /another port than SVC_PORT \(3000\) on SVC_METRICS_HOST/;
  assertRefused({ SVC_METRICS_PORT: '3000' }, 'SVC_METRICS_PORT', '3000', why);
  assertRefused({ SVC_PORT: '8080', SVC_METRICS_PORT: '8080', SVC_HOST: '::1', SVC_METRICS_HOST: '::1' }, 'SVC_METRICS_PORT', '8080', /SVC_PORT \(8080\)/);
  assertRefused({ SVC_HOST: '0.0.0.0', SVC_METRICS_PORT: '3000' }, 'SVC_METRICS_PORT', '3000', why);
  assertRefused({ SVC_METRICS_HOST: '::', SVC_METRICS_PORT: '3000' }, 'SVC_METRICS_PORT', '3000', why);
  // Another port, another specific address, or two ports both chosen by the system are fine.
  assert.equal(loadConfig({ SVC_METRICS_PORT: '3001' }).metricsPort, 3001);
  assert.equal(loadConfig({ SVC_HOST: '10.0.0.5', SVC_METRICS_PORT: '3000' }).metricsPort, 3000);
  assert.equal(loadConfig({ SVC_PORT: '0', SVC_METRICS_PORT: '0' }).metricsPort, 0);
});

test('SVC_AUTH: off, keys or jwt; keys and jwt refuse a shared token beside them, naming the variable', () => {
  assert.equal(loadConfig({ SVC_AUTH: 'keys' }).auth, 'keys');
  assert.throws(() => loadConfig({ SVC_AUTH: 'passwords' }), /^ConfigError: invalid SVC_AUTH="passwords": expected one of off, keys, jwt$/);
  assert.throws(() => loadConfig({ SVC_AUTH: 'keys', SVC_API_TOKEN: 'a'.repeat(32) }), /invalid SVC_AUTH="keys": expected off while SVC_API_TOKEN is set/);
  assert.equal(loadConfig({ SVC_AUTH: 'off', SVC_API_TOKEN: 'a'.repeat(32) }).auth, 'off');
});

test('SVC_AUTH=jwt needs an issuer and an audience; provider URLs are https, or http on a loopback host', () => {
  const jwt = { SVC_AUTH: 'jwt', SVC_JWT_ISSUER: 'https://id.example.com/realms/acme', SVC_JWT_AUDIENCE: 'svc' };
  assert.deepEqual(loadConfig(jwt).jwt, { issuer: 'https://id.example.com/realms/acme', audience: 'svc', jwksUrl: '' });
  assert.throws(() => loadConfig({ ...jwt, SVC_JWT_AUDIENCE: '' }), /invalid SVC_JWT_AUDIENCE=""/);
  assert.throws(() => loadConfig({ ...jwt, SVC_JWT_ISSUER: '' }), /invalid SVC_JWT_ISSUER=""/);
  assert.throws(() => loadConfig({ ...jwt, SVC_JWT_ISSUER: 'http://id.example.com' }), /invalid SVC_JWT_ISSUER="http:\/\/id.example.com"/);
  assert.throws(() => loadConfig({ ...jwt, SVC_JWT_JWKS_URL: 'http://10.0.0.1/jwks' }), /invalid SVC_JWT_JWKS_URL/);
  for (const local of ['http://127.0.0.1:8080/jwks', 'http://localhost/jwks', 'http://[::1]:9000/jwks']) {
    assert.equal(loadConfig({ ...jwt, SVC_JWT_JWKS_URL: local }).jwt.jwksUrl, local);
  }
});

test('SVC_CORS_ORIGINS: exact origins as browsers serialize them (RFC 6454), or * alone', () => {
  const origins = (value: string) => loadConfig({ SVC_CORS_ORIGINS: value }).corsOrigins;
  assert.deepEqual(origins(''), []);
  assert.deepEqual(origins(' * '), '*');
  // Scheme and host in lower case, no default port, a lone trailing slash dropped, duplicates merged.
  assert.deepEqual(origins('HTTPS://App.Example.COM:443/, http://localhost:5173,https://app.example.com'), ['https://app.example.com', 'http://localhost:5173']);
  assert.deepEqual(origins('http://example.com:80,https://example.com:8443'), ['http://example.com', 'https://example.com:8443']);
  assert.deepEqual(origins('https://bücher.example'), ['https://xn--bcher-kva.example']);
  assert.deepEqual(origins('http://[::1]:3000'), ['http://[::1]:3000']);
  const refusals: [string, RegExp][] = [
    ['https://a.example/app', /has a path/],
    ['https://a.example/.', /has a path/],
    ['https://a.example?x=1', /a query or a fragment/],
    ['https://a.example#top', /a query or a fragment/],
    ['https://*.example.com', /has a wildcard/],
    ['*,https://a.example', /\* is beside other origins/],
    ['https://a.example,', /an entry is empty/],
    ['null', /null is the origin of sandboxed/],
    ['file:///tmp', /is not http: or https:/],
    ['ftp://a.example', /is not http: or https:/],
    ['a.example', /is not a URL/],
    ['https://user:pw@a.example', /has user info/],
  ];
  for (const [value, reason] of refusals) {
    assert.throws(() => origins(value), (error: Error) => {
      assert.ok(error.message.startsWith(`invalid SVC_CORS_ORIGINS=${JSON.stringify(value)}: expected comma-separated origins`), error.message);
      assert.match(error.message, reason);
      return true;
    });
  }
});

test('SVC_EVENTS_RETENTION is a duration with s, m or h from 10s to 8760h', () => {
  for (const [value, ms] of [['10s', 10_000], ['90s', 90_000], ['15m', 900_000], ['168h', 604_800_000], ['8760h', 31_536_000_000], [' 2h ', 7_200_000]] as const) {
    assert.equal(loadConfig({ SVC_EVENTS_RETENTION: value }).events.retentionMs, ms, value);
  }
  for (const value of ['9s', '8761h', '0s', '1d', '10', 'h', '1.5h', '-10s', '10 s', '10S']) {
    assertRefused({ SVC_EVENTS_RETENTION: value }, 'SVC_EVENTS_RETENTION', value, /from 10s to 8760h/);
  }
});

test('SVC_STREAMS_PER_CALLER is an integer from 1; SVC_MAX_STREAMS defaults to half of SVC_MAX_CONNECTIONS', () => {
  assert.equal(loadConfig({ SVC_STREAMS_PER_CALLER: '1' }).events.streamsPerCaller, 1);
  assert.equal(loadConfig({ SVC_STREAMS_PER_CALLER: '1000000' }).events.streamsPerCaller, 1_000_000);
  for (const value of ['0', '-1', '1.5', 'five', '1000001']) assertRefused({ SVC_STREAMS_PER_CALLER: value }, 'SVC_STREAMS_PER_CALLER', value, /an integer from 1 to 1000000/);
  for (const [connections, streams] of [['20', 10], ['21', 10], ['2', 1], ['1', 0]] as const) {
    assert.equal(loadConfig({ SVC_MAX_CONNECTIONS: connections }).events.maxStreams, streams, `SVC_MAX_CONNECTIONS=${connections}`);
  }
  assert.equal(loadConfig({ SVC_MAX_CONNECTIONS: '20', SVC_MAX_STREAMS: '19' }).events.maxStreams, 19);
  assert.equal(loadConfig({ SVC_MAX_STREAMS: '0' }).events.maxStreams, 0, '0: no live streams at all');
  for (const value of ['-1', '2.5', 'half']) assertRefused({ SVC_MAX_STREAMS: value }, 'SVC_MAX_STREAMS', value, /an integer from 0 to 1000000/);
});

test('SVC_MAX_STREAMS not below SVC_MAX_CONNECTIONS stops start-up, naming both', () => {
  for (const [streams, connections] of [['20', '20'], ['21', '20'], ['10000', undefined]] as const) {
    const env = connections === undefined ? { SVC_MAX_STREAMS: streams } : { SVC_MAX_STREAMS: streams, SVC_MAX_CONNECTIONS: connections };
    assertRefused(env, 'SVC_MAX_STREAMS', streams, new RegExp(`expected less than SVC_MAX_CONNECTIONS \\(${connections ?? '10000'}\\)`));
  }
});
