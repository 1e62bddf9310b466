import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { type ErrorCode, ERRORS, HttpError } from '../../src/http/errors.ts';
import { problemFor } from '../../src/http/problem.ts';
import { createLogger } from '../../src/log/logger.ts';
import { buildOpenApiDocument, openApiOptionsFor } from '../../src/openapi/document.ts';
import { ERROR_SCOPES } from '../../src/openapi/problems.ts';
import { ProductStatus } from '../../src/products/model.ts';
import { resolvePointer, type Schema, validate } from '../support/schema.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const VARIANTS = [
  { SVC_API_TOKEN: '', SVC_RATE_LIMIT: '0' },
  { SVC_API_TOKEN: 'a-token-long-enough-1234', SVC_RATE_LIMIT: '0' },
  { SVC_API_TOKEN: '', SVC_RATE_LIMIT: '100' },
  { SVC_API_TOKEN: 'a-token-long-enough-1234', SVC_RATE_LIMIT: '100' },
];
const ALL_ON = buildOpenApiDocument({ bearerAuth: true, rateLimited: true }) as Json;

function operationsOf(document: Json): { key: string; operation: Json }[] {
  return Object.entries(document['paths'] as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({ key: `${method.toUpperCase()} ${path}`, operation: item[method] as Json })),
  );
}

function problemCodesOf(operation: Json): string[] {
  return Object.values(operation['responses'] as Record<string, Json>).flatMap((response) => {
    const media = (response['content'] as Record<string, Json> | undefined)?.['application/problem+json'];
    return media === undefined ? [] : Object.keys(media['examples'] as Json);
  });
}

// Every node of the document, with its JSON pointer.
function* walk(node: unknown, at = '#'): Generator<[string, Json]> {
  if (typeof node !== 'object' || node === null) return;
  if (!Array.isArray(node)) yield [at, node as Json];
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('GET /api/openapi.json serves the document built for the running configuration', async () => {
  const res = await fetch(`${server.url}/api/openapi.json`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  const served = (await res.json()) as Json;
  assert.deepEqual(served, buildOpenApiDocument(openApiOptionsFor(server.config)));
  assert.match(String(served['openapi']), /^3\.1\.\d+$/);
});

test('the operations in the document are exactly the routes the app serves, in every configuration', () => {
  const db = openDatabase(':memory:');
  migrate(db);
  try {
    for (const env of VARIANTS) {
      const config = loadConfig(env);
      const app = createApp({ db, config, logger: createLogger('silent') });
      const routes = app.routes.map((route) => `${route.method} ${route.pattern}`).sort();
      const documented = operationsOf(buildOpenApiDocument(openApiOptionsFor(config))).map((op) => op.key).sort();
      assert.deepEqual(documented, routes, JSON.stringify(env));
    }
  } finally {
    db.close();
  }
});

test('every $ref resolves and every example conforms to its schema', () => {
  let examples = 0;
  for (const [at, node] of walk(ALL_ON)) {
    if (typeof node['$ref'] === 'string') assert.doesNotThrow(() => resolvePointer(ALL_ON, node['$ref'] as string), at);
    const schema = node['schema'] as Schema | undefined;
    const found = [
      ...(schema !== undefined && 'example' in node ? [node['example']] : []),
      ...(schema !== undefined ? Object.values((node['examples'] as Record<string, Json> | undefined) ?? {}).map((e) => e['value']) : []),
      ...(schema === undefined && Array.isArray(node['examples']) && node['type'] !== undefined ? (node['examples'] as unknown[]) : []),
    ];
    for (const example of found) {
      examples++;
      assert.deepEqual(validate(example, schema ?? (node as Schema), ALL_ON), [], `example at ${at}`);
    }
  }
  assert.ok(examples > 20, `only ${examples} examples checked`);
});

test('every code of the error catalogue is documented where it can happen', () => {
  const documented = new Set(operationsOf(ALL_ON).flatMap(({ operation }) => problemCodesOf(operation)));
  const description = String((ALL_ON['info'] as Json)['description']);
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    if (ERROR_SCOPES[code].on === 'any_request') assert.ok(description.includes(`\`${code}\``), `${code} in info.description`);
    else assert.ok(documented.has(code), `${code} documented on some operation`);
  }
  const problem = (ALL_ON['components'] as Json)['schemas'] as Record<string, Schema>;
  assert.deepEqual((problem['Problem']?.['properties'] as Json)['code'], { type: 'string', enum: Object.keys(ERRORS), description: 'Stable and machine-readable.' });
});

// Written out here, apart from ERROR_SCOPES: the operations on which each request-made code is listed.
const PLACES: Readonly<Record<string, RegExp>> = {
  invalid_json: /^(POST|PATCH) /,
  invalid_query: /^GET \/api\/(products|workspaces)$/,
  invalid_header: /^(POST|PATCH|DELETE) |^GET \/api\/\w+\/\{id\}$/,
  unauthorized: /^(POST|PATCH|DELETE) /,
  not_found: /^(GET|PATCH|DELETE) \/api\/\w+\/\{id\}$/,
  idempotency_key_in_use: /^POST /,
  idempotency_key_reused: /^POST /,
  product_archived: /^PATCH \/api\/products\/\{id\}$/,
  precondition_failed: /^(PATCH|DELETE) |^GET \/api\/\w+\/\{id\}$/,
  payload_too_large: /^(POST|PATCH) /,
  unsupported_media_type: /^(POST|PATCH) /,
  validation_failed: /^(POST|PATCH) /,
  rate_limited: /^(?!GET \/api\/ping$)/,
};

test('each code is listed on exactly the operations that can meet it', () => {
  for (const { key, operation } of operationsOf(ALL_ON)) {
    const codes = problemCodesOf(operation);
    for (const [code, where] of Object.entries(PLACES)) assert.equal(codes.includes(code), where.test(key), `${code} on ${key}`);
    for (const code of ['internal_error', 'unavailable']) assert.ok(codes.includes(code), `${code} on ${key}`);
  }
  const open = operationsOf(buildOpenApiDocument({ bearerAuth: false, rateLimited: false }) as Json);
  for (const { key, operation } of open) assert.deepEqual(problemCodesOf(operation).filter((c) => c === 'unauthorized' || c === 'rate_limited'), [], key);
});

test('a problem document of every code conforms to the Problem schema', () => {
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const problem = problemFor(new HttpError(code), '/api/products', 'req-1');
    assert.deepEqual(validate(problem, { $ref: '#/components/schemas/Problem' }, ALL_ON), [], code);
  }
  const unexpected = problemFor(new Error('SQLITE_CORRUPT /var/db'), '/api/products', 'req-1');
  assert.deepEqual(validate(unexpected, { $ref: '#/components/schemas/Problem' }, ALL_ON), []);
});

test('operations that take input list a client error; writes need the bearer token only when one is configured', () => {
  for (const { key, operation } of operationsOf(ALL_ON)) {
    const statuses = Object.keys(operation['responses'] as Json);
    if (key !== 'GET /api/ping' && key !== 'GET /api/openapi.json') assert.ok(statuses.some((s) => s.startsWith('4')), key);
    assert.deepEqual(operation['security'], /^(POST|PATCH|DELETE) /.test(key) ? [{ bearerAuth: [] }] : [], key);
  }
  const open = buildOpenApiDocument({ bearerAuth: false, rateLimited: false }) as Json;
  for (const { key, operation } of operationsOf(open)) {
    assert.deepEqual(operation['security'], [], key);
    assert.equal((operation['responses'] as Json)['401'], undefined, key);
    assert.equal((operation['responses'] as Json)['429'], undefined, key);
  }
});

test('every operation on one resource takes If-Match and If-None-Match; every 415 carries Accept-Encoding: identity', () => {
  for (const { key, operation } of operationsOf(ALL_ON)) {
    const parameters = ((operation['parameters'] as Json[]) ?? []).map((parameter) => parameter['$ref']);
    const item = /\/\{id\}$/.test(key);
    for (const name of ['IfMatch', 'IfNoneMatch']) assert.equal(parameters.includes(`#/components/parameters/${name}`), item, `${name} on ${key}`);
    const unsupported = (operation['responses'] as Record<string, Json>)['415'];
    assert.equal(unsupported !== undefined, /^(POST|PATCH) /.test(key), `415 on ${key}`);
    if (unsupported !== undefined) {
      assert.deepEqual((unsupported['headers'] as Json)['Accept-Encoding'], { $ref: '#/components/headers/AcceptEncoding' }, key);
    }
  }
  const header = ((ALL_ON['components'] as Json)['headers'] as Record<string, Json>)['AcceptEncoding'];
  assert.deepEqual([header?.['required'], header?.['schema']], [true, { const: 'identity' }]);
});

test('integer enums carry their names from the model', () => {
  const schemas = (ALL_ON['components'] as Json)['schemas'] as Record<string, Json>;
  const oneOf = schemas['ProductStatus']?.['oneOf'] as { const: number; title: string }[];
  assert.deepEqual(Object.fromEntries(oneOf.map((option) => [option.title, option.const])), ProductStatus);
});
