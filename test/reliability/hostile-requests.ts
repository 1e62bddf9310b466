import type { Resource } from '../../src/resources/resource.ts';
import { hostileBody } from './hostile-bodies.ts';
import { rawRequest } from './raw-http.ts';
import type { Random } from './seeded-random.ts';

/** One generated request: its bytes, and what the client must know to read the answer. */
export interface HostileCase {
  label: string;
  bytes: Buffer;
  /** HEAD: the answer has headers only. */
  bodyless: boolean;
  /** CONNECT and the like: the server may hang up without an answer. */
  mayHangUp: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE', 'QUERY', 'get', 'Post', 'G\tET', 'GET\u0000', 'X'.repeat(300), 'BREW'];

const IDS = ['0', '-1', '01', '1e3', '0x10', '1.0', '9007199254740991', '9007199254740992', '99999999999999999999', '%31', '1%00', '1%2f2', '%2e%2e', '..', '.', '%20%31', '1;DROP TABLE {a}', "1'--", '1 OR 1=1', 'NaN', 'Infinity', '%F0%9F%99%82', '\u00ff\u00fe', '%ED%A0%80', 'null', 'undefined', '__proto__', 'constructor', 'x'.repeat(2_000)];

// Targets around two resources' paths ({a} and {b}, their plurals) and the service's own.
const PATHS = ['/api/{a}', '/api/{b}', '/api/ping', '/api/openapi.json', '/api/{a}/', '//api/{a}', '/api//{a}', '/api/{a}/../{b}', '/api/%2e%2e/api/{a}', '/API/{A}', '/api/{a}%2f1', '/%61pi/ping', '/api/ping/', '/api/ping?', '/api', '/', '*', 'http://evil.example/api/ping', '/api/{a}#frag', `/api/${'a/'.repeat(2_000)}`, `/${'%2e%2e/'.repeat(500)}etc/passwd`, '/api/{a}/\u00c3\u00a9', '/api/{a}\u00ff', '/api/{a}/%', '/api/{a}/%zz', '/.env', '/api/../../../../etc/passwd'];

const LIMITS = ['0', '-1', '1', '200', '201', '1e2', '1.5', '01', ' 5', '5 ', '%00', '99999999999999999999', 'NaN', '', 'x', "1'; DROP TABLE {a};--", '%E2%80%AE5', '0x10', '+5', '١٢'];

const CURSORS = ['', 'x', '=', '%00', 'cHJvZHVjdHM6MA', 'cHJvZHVjdHM6LTE', 'd29ya3NwYWNlczo1', 'cHJvZHVjdHM6OTk5OTk5OTk5OTk5OTk5OTk5', 'cHJvZHVjdHM6MSBPUiAxPTE', 'A'.repeat(65), 'A'.repeat(10_000), "' OR '1'='1", 'cHJvZHVjdHM6MQ==', '../../', '%F0%9F%99%82'];

const MEDIA_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON; CHARSET=UTF-8', 'application/json; charset="utf-8"', 'application/json; charset=latin1', 'application/json;charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json; x=y', 'application/merge-patch+json', '*/*', '', ';', 'application/json\u00ff', null];

const ODD_HEADERS: readonly [string, string][] = [
  ['x-request-id', 'a'.repeat(129)], ['x-request-id', '<script>'], ['x-request-id', '\u00ff\u00fe'], ['x-request-id', '../../x'],
  ['idempotency-key', ''], ['idempotency-key', 'k'.repeat(256)], ['idempotency-key', 'has space'], ['idempotency-key', '\u00e9t\u00e9'],
  ['authorization', 'Bearer '], ['authorization', 'Basic Zm9vOmJhcg=='], ['authorization', 'x'.repeat(4_000)],
  ['x-forwarded-for', '1.2.3.4, evil'], ['x-forwarded-for', 'x'.repeat(1_000)], ['forwarded', 'for=unknown'],
  ['accept', 'text/html'], ['accept', '*/*;q=abc'], ['accept-encoding', 'gzip, br, zstd'], ['range', 'bytes=0-1'],
  ['if-none-match', '*'], ['expect', '100-continue'], ['connection', 'upgrade'], ['upgrade', 'websocket'],
  ['cookie', `a=${'b'.repeat(2_000)}`], ['x-http-method-override', 'DELETE'], ['host', 'evil.example'], ['host', ''],
  ['x-empty', ''], ['x-latin1', '\u00e9\u00e8'], ['x-huge', 'h'.repeat(8_000)], ['content-encoding', 'gzip'],
];

// {a} and {b} in `text` made two resources' plurals ({A} upper case).
function filled(text: string, a: Resource, b: Resource): string {
  return text.replaceAll('{a}', a.plural).replaceAll('{A}', a.plural.toUpperCase()).replaceAll('{b}', b.plural);
}

// A query a hostile client sends to a list: bad limits and cursors, a bad value of each of its filters.
function queryFor(random: Random, resource: Resource): string {
  const query: string[] = [];
  if (random.chance(0.7)) query.push(`limit=${random.pick(LIMITS)}`);
  if (random.chance(0.6)) query.push(`cursor=${random.pick(CURSORS)}`);
  for (const filter of resource.filters) if (random.chance(0.3)) query.push(`${filter}=${random.pick(LIMITS)}`);
  if (random.chance(0.2)) query.push(random.pick(['limit=1&limit=2', '__proto__=1', 'constructor[prototype][polluted]=1', '&&&', '=', '%zz', 'a'.repeat(3_000)]));
  return query.join('&');
}

function pathFor(random: Random, resources: readonly Resource[]): string {
  const [a, b] = [random.pick(resources), random.pick(resources)];
  const roll = random.int(4);
  if (roll === 0) return `${a.path}/${filled(random.pick(IDS), a, b)}`;
  if (roll === 1) return `${a.path}?${filled(queryFor(random, a), a, b)}`;
  return filled(random.pick(PATHS), a, b);
}

function chunked(body: Buffer, random: Random): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const size = Math.min(body.length - at, 1 + random.int(64));
    parts.push(Buffer.from(`${size.toString(16)}\r\n`), body.subarray(at, at + size), Buffer.from('\r\n'));
    at += size;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function createRequest(random: Random, headers: [string, string][], resources: readonly Resource[]): Buffer {
  const resource = random.pick(resources);
  const body = hostileBody(random, resource);
  const type = random.chance(0.8) ? 'application/json' : random.pick(MEDIA_TYPES);
  if (type !== null) headers.push(['content-type', type]);
  if (random.chance(0.2)) headers.push(['idempotency-key', `fuzz-${random.int(50)}`]);
  const path = random.chance(0.9) ? resource.path : pathFor(random, resources);
  if (random.chance(0.15)) return rawRequest('POST', path, [...headers, ['transfer-encoding', 'chunked']], chunked(body, random));
  return rawRequest('POST', path, [...headers, ['content-length', String(body.length)]], body);
}

/** One hostile request from the seeded source to a server of `resources`: method, target, headers and body all vary. */
export function hostileCase(random: Random, index: number, resources: readonly Resource[]): HostileCase {
  const headers: [string, string][] = [['host', '127.0.0.1']];
  for (let extra = random.chance(0.3) ? random.between(1, 3) : 0; extra > 0; extra--) headers.push([...random.pick(ODD_HEADERS)]);
  if (random.chance(0.03)) headers.shift(); // no Host at all
  const kind = random.int(10);
  if (kind < 5) return { label: `#${index} create`, bytes: createRequest(random, headers, resources), bodyless: false, mayHangUp: false };
  if (kind === 5) {
    // CONNECT asks for a tunnel; a server without one may simply hang up.
    return { label: `#${index} CONNECT`, bytes: rawRequest('CONNECT', random.pick(['127.0.0.1:22', '/api/ping', '*']), headers), bodyless: false, mayHangUp: true };
  }
  const method = kind < 8 ? random.pick(['GET', 'HEAD']) : random.pick(METHODS);
  const path = pathFor(random, resources);
  const bytes = rawRequest(method, path, headers);
  return { label: `#${index} ${method.slice(0, 12)} ${path.slice(0, 60)}`, bytes, bodyless: method === 'HEAD', mayHangUp: false };
}
