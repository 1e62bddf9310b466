import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ErrorCode, ERRORS, HttpError } from '../../src/http/errors.ts';
import { problemFor } from '../../src/http/problem.ts';
// As an embedding program imports it (the package's index), to merge into its own document.
import { buildOpenApiDocument, openApiOptionsFor } from '../../src/index.ts';
import { ERROR_SCOPES } from '../../src/openapi/problems.ts';
import { ALL_RESOURCES } from '../support/resources.ts';
import { resolvePointer, type Schema, validate } from '../support/schema.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { documentFor, documentOf, MODES, type Mode, routesFor, VERSION_IDS } from './documents.ts';
import { operationsOf, problemCodesOf } from './operations.ts';

type Json = Record<string, unknown>;
const ALL_MODES = Object.keys(MODES) as Mode[];
// API keys and rate limiting on: every operation and every response the document can list, of every
// resource the tests know (the service's and the throwaway one).
const ALL_ON = documentOf('keys', true, ALL_RESOURCES);
// The document of a mode in an API version (the default's when left out).
const everything = (mode: Mode, rateLimited = true, version?: string): Json => documentOf(mode, rateLimited, ALL_RESOURCES, version);
// The described resources' paths, as a pattern: each shared rule holds on every one of them.
const RESOURCE = ALL_RESOURCES.map((resource) => resource.plural).join('|');
// The error codes of the resources' own rules, and the change each answers.
const OWN_CODES = ALL_RESOURCES.flatMap((resource) => resource.rules.map((rule) => ({ code: rule.refusal.code, plural: resource.plural })));

// Every node of the document, with its JSON pointer.
function* walk(node: unknown, at = '#'): Generator<[string, Json]> {
  if (typeof node !== 'object' || node === null) return;
  if (!Array.isArray(node)) yield [at, node as Json];
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

let server: TestServer;
let keysServer: TestServer;
before(async () => {
  server = await startTestServer();
  keysServer = await startTestServer({ SVC_AUTH: 'keys' });
});
after(async () => {
  await server.stop();
  await keysServer.stop();
});

test('GET /api/openapi.json serves the document built for the running configuration, the routes the app serves and the version asked for', async () => {
  for (const running of [server, keysServer]) {
    const built = (version?: string): Json => buildOpenApiDocument(openApiOptionsFor(running.config, running.app.routes, running.app.resources, running.app.versions, version));
    const res = await fetch(`${running.url}/api/openapi.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const served = (await res.json()) as Json;
    assert.deepEqual(served, built());
    assert.match(String(served['openapi']), /^3\.1\.\d+$/);
    assert.equal((served['info'] as Json)['version'], running.config.versions.defaultVersion);
    for (const version of VERSION_IDS) {
      // By the header, and by `?version=`, which wins over it.
      const other = VERSION_IDS.find((id) => id !== version) ?? '';
      for (const asked of [fetch(`${running.url}/api/openapi.json`, { headers: { 'api-version': version } }), fetch(`${running.url}/api/openapi.json?version=${version}`, { headers: { 'api-version': other } })]) {
        const answer = await asked;
        assert.deepEqual([answer.status, answer.headers.get('api-version')], [200, version]);
        assert.deepEqual(await answer.json(), built(version), version);
      }
    }
  }
});

test('the operations in the document are exactly the routes the app serves, in every mode and every version', () => {
  for (const mode of ALL_MODES) {
    for (const rate of ['0', '100']) {
      const env = { ...MODES[mode], SVC_RATE_LIMIT: rate };
      const routes = routesFor(env, ALL_RESOURCES).map((route) => `${route.method} ${route.pattern}`).sort();
      for (const version of VERSION_IDS) {
        const documented = operationsOf(documentFor(env, ALL_RESOURCES, version)).map((op) => op.key).sort();
        assert.deepEqual(documented, routes, `${JSON.stringify(env)} ${version}`);
      }
    }
  }
  assert.ok(operationsOf(everything('keys')).some((op) => op.key === 'DELETE /api/keys/{id}'), 'the keys document has the keys endpoints');
  for (const mode of ['off', 'token', 'jwt'] as const) assert.ok(!operationsOf(everything(mode)).some((op) => op.key.includes('/api/keys')), mode);
});

test('in every mode and every version, every $ref resolves and every example conforms to its schema', () => {
  for (const [mode, version] of ALL_MODES.flatMap((mode) => VERSION_IDS.map((id) => [mode, id] as const))) {
    const document = everything(mode, true, version);
    let examples = 0;
    for (const [at, node] of walk(document)) {
      if (typeof node['$ref'] === 'string') assert.doesNotThrow(() => resolvePointer(document, node['$ref'] as string), `${mode} ${at}`);
      const schema = node['schema'] as Schema | undefined;
      const found = [
        ...(schema !== undefined && 'example' in node ? [node['example']] : []),
        ...(schema !== undefined ? Object.values((node['examples'] as Record<string, Json> | undefined) ?? {}).map((e) => e['value']) : []),
        ...(schema === undefined && Array.isArray(node['examples']) && node['type'] !== undefined ? (node['examples'] as unknown[]) : []),
      ];
      for (const example of found) {
        examples++;
        assert.deepEqual(validate(example, schema ?? (node as Schema), document), [], `${mode} ${version}: example at ${at}`);
      }
    }
    assert.ok(examples > 20, `${mode} ${version}: only ${examples} examples checked`);
  }
});

test('every code of the error catalogue is documented where it can happen', () => {
  const documented = new Set(operationsOf(ALL_ON).flatMap(({ operation }) => problemCodesOf(operation)));
  const description = String((ALL_ON['info'] as Json)['description']);
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    if (ERROR_SCOPES[code].on === 'any_request') assert.ok(description.includes(`\`${code}\``), `${code} in info.description`);
    else assert.ok(documented.has(code), `${code} documented on some operation`);
  }
  const problem = (ALL_ON['components'] as Json)['schemas'] as Record<string, Schema>;
  for (const { code } of OWN_CODES) assert.ok(documented.has(code), `${code} documented on some operation`);
  const codes = [...Object.keys(ERRORS), ...OWN_CODES.map(({ code }) => code)];
  assert.deepEqual((problem['Problem']?.['properties'] as Json)['code'], { type: 'string', enum: codes, description: 'Stable and machine-readable.' });
});

// Written out here, apart from ERROR_SCOPES: the operations on which each request-made code is listed.
const PLACES: Readonly<Record<string, RegExp>> = {
  invalid_json: /^(POST|PATCH) (?!.*\/retry$)/,
  invalid_query: new RegExp(`^GET /api/(${RESOURCE}|keys|events|webhooks)$|^GET /api/webhooks/\\{id\\}/deliveries$`),
  events_expired: /^GET \/api\/events$|^POST \/api\/webhooks\/\{id\}\/deliveries\/\{eventId\}\/retry$/,
  invalid_header: /^(PATCH|DELETE) |^POST \/api\/\w+(\/\{id\}\/rotate-secret)?$|^GET \/api\/\w+\/\{id\}$|^GET \/api\/events$/,
  not_found: /^(GET|PATCH|DELETE) \/api\/\w+\/\{id\}$|^(POST|GET) \/api\/webhooks\/\{id\}\/.+$/,
  webhook_disabled: /^POST \/api\/webhooks\/\{id\}\/deliveries\/\{eventId\}\/retry$/,
  idempotency_key_in_use: new RegExp(`^POST /api/(${RESOURCE})$`),
  idempotency_key_reused: new RegExp(`^POST /api/(${RESOURCE})$`),
  ...Object.fromEntries(OWN_CODES.map(({ code, plural }) => [code, new RegExp(`^PATCH /api/${plural}/\\{id\\}$`)])),
  precondition_failed: /^(PATCH|DELETE) |^GET \/api\/\w+\/\{id\}$|^POST \/api\/webhooks\/\{id\}\/rotate-secret$/,
  payload_too_large: /^(POST|PATCH) (?!.*\/retry$)/,
  unsupported_media_type: /^(POST|PATCH) (?!.*\/retry$)/,
  validation_failed: /^(POST|PATCH) (?!.*\/retry$)/,
  rate_limited: /^(?!GET \/api\/ping$)/,
  // A version not served, named by the request: on every operation, before anything else.
  unsupported_api_version: /^/,
};
const NOWHERE = /(?!)/;
const NOT_OPEN = /^(?!GET \/api\/(ping|openapi\.json|docs|versions)$)/;
// 401 where a credential is checked; 403 where a valid one can lack the scope (a key holds at least read).
const CALLER_PLACES: Readonly<Record<Mode, Readonly<Record<string, RegExp>>>> = {
  off: { unauthorized: NOWHERE, forbidden: NOWHERE },
  token: { unauthorized: /^(POST|PATCH|DELETE) | \/api\/webhooks/, forbidden: NOWHERE },
  keys: { unauthorized: NOT_OPEN, forbidden: /^(POST|PATCH|DELETE) |\/api\/(keys|webhooks)/ },
  jwt: { unauthorized: NOT_OPEN, forbidden: NOT_OPEN },
};

test('in every mode and every version, each code is listed on exactly the operations that can meet it', () => {
  for (const [mode, version] of ALL_MODES.flatMap((mode) => VERSION_IDS.map((id) => [mode, id] as const))) {
    for (const { key, operation } of operationsOf(everything(mode, true, version))) {
      const codes = problemCodesOf(operation);
      for (const [code, where] of Object.entries({ ...PLACES, ...CALLER_PLACES[mode] })) assert.equal(codes.includes(code), where.test(key), `${mode} ${version}: ${code} on ${key}`);
      for (const code of ['internal_error', 'unavailable']) assert.ok(codes.includes(code), `${mode} ${version}: ${code} on ${key}`);
    }
  }
  // Without a rate limit, only the live stream's own limit per caller answers 429 (on the event feed's operation).
  for (const { key, operation } of operationsOf(everything('off', false))) {
    assert.deepEqual(problemCodesOf(operation).filter((c) => c === 'unauthorized' || c === 'rate_limited'), key === 'GET /api/events' ? ['rate_limited'] : [], key);
  }
});

test('a problem document of every code conforms to the Problem schema', () => {
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const problem = problemFor(new HttpError(code), '/api/things', 'req-1');
    assert.deepEqual(validate(problem, { $ref: '#/components/schemas/Problem' }, ALL_ON), [], code);
  }
  const unexpected = problemFor(new Error('SQLITE_CORRUPT /var/db'), '/api/things', 'req-1');
  assert.deepEqual(validate(unexpected, { $ref: '#/components/schemas/Problem' }, ALL_ON), []);
});

test('in every mode, every operation lists a client error: a version it does not serve, at least', () => {
  for (const mode of ALL_MODES) {
    for (const { key, operation } of operationsOf(everything(mode, false))) {
      const statuses = Object.keys(operation['responses'] as Json);
      assert.ok(statuses.some((s) => s.startsWith('4')), `${mode}: ${key}`);
    }
  }
});

test('every operation on one resource takes If-Match and If-None-Match; every 415 carries Accept-Encoding: identity', () => {
  for (const { key, operation } of operationsOf(ALL_ON)) {
    const parameters = ((operation['parameters'] as Json[]) ?? []).map((parameter) => parameter['$ref']);
    assert.equal(parameters.includes('#/components/parameters/IdempotencyKey'), new RegExp(`^POST /api/(${RESOURCE})$`).test(key), `Idempotency-Key on ${key}`);
    const item = /\/\{id\}(\/rotate-secret)?$/.test(key);
    // The event feed revalidates a page with If-None-Match (304 while nothing new is recorded).
    const feed = key === 'GET /api/events';
    for (const name of ['IfMatch', 'IfNoneMatch']) assert.equal(parameters.includes(`#/components/parameters/${name}`), item || (feed && name === 'IfNoneMatch'), `${name} on ${key}`);
    const unsupported = (operation['responses'] as Record<string, Json>)['415'];
    assert.equal(unsupported !== undefined, /^(POST|PATCH) (?!.*\/retry$)/.test(key), `415 on ${key}`);
    if (unsupported !== undefined) {
      assert.deepEqual((unsupported['headers'] as Json)['Accept-Encoding'], { $ref: '#/components/headers/AcceptEncoding' }, key);
    }
  }
  const header = ((ALL_ON['components'] as Json)['headers'] as Record<string, Json>)['AcceptEncoding'];
  assert.deepEqual([header?.['required'], header?.['schema']], [true, { const: 'identity' }]);
});

test('integer enums carry their names from the resource descriptions, each field refers to its enum', () => {
  const schemas = (ALL_ON['components'] as Json)['schemas'] as Record<string, Json>;
  let enums = 0;
  for (const resource of ALL_RESOURCES) {
    for (const [name, field] of Object.entries(resource.fields)) {
      const scalars = field.kind === 'scalar' ? [field] : Object.values(field.members);
      for (const scalar of scalars) {
        if (scalar.named === undefined) continue;
        const ref = String(scalar.schema['$ref']);
        const oneOf = schemas[ref.replace('#/components/schemas/', '')]?.['oneOf'] as { const: number; title: string }[];
        assert.deepEqual(Object.fromEntries(oneOf.map((option) => [option.title, option.const])), scalar.named, `${resource.plural}.${name}`);
        enums++;
      }
    }
  }
  assert.ok(enums >= 2, 'a resource of the service and the test resource have an enum');
});
