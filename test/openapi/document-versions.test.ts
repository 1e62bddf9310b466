import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument, openApiOptionsFor } from '../../src/openapi/document.ts';
import { VERSIONS } from '../../src/registry.ts';
import { integerField, textField } from '../../src/resources/fields.ts';
import { describeResource, type FieldTable, type Resource } from '../../src/resources/resource.ts';
import { CURRENCIES } from '../../src/shared/currencies.ts';
import { buildVersions, type VersionView } from '../../src/versions/api-versions.ts';
import { LIST } from '../../src/versions/model.ts';
import { ALL_RESOURCES, RESOURCES, validBody } from '../support/resources.ts';
import { resolvePointer, type Schema, validate } from '../support/schema.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { postJson, startTestServer } from '../support/server.ts';
import { documentFor, MODES, routesFor, VERSION_IDS, versionsFor } from './documents.ts';
import { operationsOf } from './operations.ts';

// What each API version's document says (docs/versions.md, docs/openapi.md): the version's own shapes,
// derived from its view of the resources and of lists, its request and response headers, and nothing
// in src/openapi/ that names a version: a version added later changes the documents by itself.
type Json = Record<string, unknown>;

const VIEWS = versionsFor();
const viewOf = (id: string): VersionView => VIEWS.all.find((view) => view.id === id) as VersionView;
// Every resource the tests know, in keys mode with rate limiting: every operation and response, in `version`.
const documentIn = (version: string, env: Record<string, string> = {}): Json => documentFor({ ...MODES.keys, SVC_RATE_LIMIT: '100', ...env }, ALL_RESOURCES, version);
const DOCUMENTS = new Map(VERSION_IDS.map((id) => [id, documentIn(id)]));
const documentOf = (id: string): Json => DOCUMENTS.get(id) as Json;
const schemasOf = (document: Json): Record<string, Json> => (document['components'] as Record<string, Record<string, Json>>)['schemas'] ?? {};
const propertiesOf = (schema: Json | undefined): Json => (schema?.['properties'] as Json | undefined) ?? {};
const products = RESOURCES.find((resource) => resource.plural === 'products') as Resource;

// Written out here, apart from the versions' own modules: what each version changed, as the contract (§18) lists it.
const PRICE_MEMBER: Readonly<Record<string, string>> = { '2026-11-21': 'priceInCents', '2026-11-28': 'priceInCents', '2026-12-05': 'price' };
const LISTS_ARE_ARRAYS: Readonly<Record<string, boolean>> = { '2026-11-21': true, '2026-11-28': false, '2026-12-05': false };
const PINS_SHOWN: Readonly<Record<string, boolean>> = { '2026-11-21': false, '2026-11-28': true, '2026-12-05': true };

test('the contract\'s three versions are the ones served, and each has its own document, info.version naming it', () => {
  assert.deepEqual(VERSION_IDS, Object.keys(PRICE_MEMBER));
  for (const id of VERSION_IDS) assert.equal((documentOf(id)['info'] as Json)['version'], id);
});

test('each version\'s resource schemas are the resource\'s fields in that version: representation, create and patch', () => {
  for (const id of VERSION_IDS) {
    const schemas = schemasOf(documentOf(id));
    for (const resource of ALL_RESOURCES) {
      const fields: FieldTable = viewOf(id).fieldsOf(resource);
      const at = `${id} ${resource.title}`;
      assert.deepEqual(Object.keys(propertiesOf(schemas[resource.title])), ['id', ...Object.keys(fields), 'createdAt', 'updatedAt'], at);
      for (const [name, field] of Object.entries(fields)) {
        assert.deepEqual(propertiesOf(schemas[resource.title])[name], field.schema, `${at}.${name}`);
        assert.deepEqual(propertiesOf(schemas[`New${resource.title}`])[name], field.schema, `${at} create ${name}`);
        assert.deepEqual(propertiesOf(schemas[`${resource.title}Patch`])[name], field.patchSchema, `${at} patch ${name}`);
      }
    }
  }
});

test('products: priceInCents in 2026-11-21 and 2026-11-28, price { amount, currency } in 2026-12-05 with the currencies served', () => {
  for (const id of VERSION_IDS) {
    const product = propertiesOf(schemasOf(documentOf(id))['Product']);
    const price = PRICE_MEMBER[id] ?? '';
    assert.deepEqual(Object.keys(product).filter((member) => member.startsWith('price')), [price], id);
    const example = ((schemasOf(documentOf(id))['Product']?.['examples'] as Json[])[0] ?? {})[price];
    if (price === 'priceInCents') {
      assert.equal((product[price] as Json)['type'], 'integer', id);
      assert.equal(typeof example, 'number', id);
      continue;
    }
    const members = propertiesOf(product[price] as Json);
    assert.deepEqual((product[price] as Json)['required'], ['amount', 'currency']);
    assert.deepEqual((members['currency'] as Json)['enum'], CURRENCIES);
    const field = products.fields['price'];
    assert.ok(field?.kind === 'object');
    assert.deepEqual(members['currency'], field.members['currency']?.schema, 'the enum is the field\'s own');
    assert.deepEqual(Object.keys(example as Json), ['amount', 'currency']);
  }
});

// The 200 body schema of every list operation of a document, by `METHOD /path`.
function listSchemas(document: Json): Map<string, Json> {
  const lists = new Map<string, Json>();
  for (const { key, operation } of operationsOf(document)) {
    const ok = (operation['responses'] as Record<string, Json>)['200'];
    const headers = (ok?.['headers'] as Json | undefined) ?? {};
    // A page: its next page is linked (the feed's always, the others' while more follow).
    if (!key.startsWith('GET ') || !Object.keys(headers).includes('Link') || key.endsWith('{id}')) continue;
    lists.set(key, (ok?.['content'] as Record<string, Json>)['application/json']?.['schema'] as Json);
  }
  return lists;
}

test('every list is an array before 2026-11-28 and { data, hasMore } from it on, as each version\'s list change says', () => {
  for (const id of VERSION_IDS) {
    const lists = listSchemas(documentOf(id));
    const everyList = [...ALL_RESOURCES.map((resource) => resource.path), '/api/keys', '/api/events', '/api/webhooks', '/api/webhooks/{id}/deliveries'];
    assert.deepEqual([...lists.keys()].sort(), everyList.map((path) => `GET ${path}`).sort());
    const array = Array.isArray(viewOf(id).downgrade(LIST, { data: [], hasMore: false }));
    assert.equal(array, LISTS_ARE_ARRAYS[id], `${id}: the version's own list change`);
    for (const [key, schema] of lists) {
      if (array) {
        assert.equal(schema['type'], 'array', `${id} ${key}`);
        continue;
      }
      assert.deepEqual([schema['type'], schema['required'], schema['additionalProperties']], ['object', ['data', 'hasMore'], false], `${id} ${key}`);
      const { data, hasMore } = propertiesOf(schema) as { data: Json; hasMore: Json };
      assert.equal(data['type'], 'array', `${id} ${key}`);
      assert.equal(hasMore['type'], 'boolean', `${id} ${key}`);
    }
  }
});

test('ApiKey, Webhook and their bodies have apiVersion where the version has it; a key\'s patch takes it in every version', () => {
  const env = { ...MODES.keys, SVC_RATE_LIMIT: '100' };
  const routes = routesFor(env);
  const served = VIEWS.servedAt().map((view) => view.id);
  for (const id of VERSION_IDS) {
    const document = buildOpenApiDocument(openApiOptionsFor(loadConfig(env), routes, RESOURCES, VIEWS, id));
    const schemas = schemasOf(document);
    for (const [kind, names] of [['keys', ['ApiKey', 'CreatedApiKey', 'NewApiKey']], ['webhooks', ['Webhook', 'WebhookWithSecret', 'NewWebhook', 'WebhookPatch']]] as const) {
      const shown = viewOf(id).has(kind, 'apiVersion');
      assert.equal(shown, PINS_SHOWN[id], `${id} ${kind}`);
      for (const name of names) assert.equal('apiVersion' in propertiesOf(schemas[name]), shown, `${id} ${name}`);
    }
    if (PINS_SHOWN[id] === true) {
      // A representation may show a version past its sunset (a key keeps its pin); a request names one served.
      assert.deepEqual((propertiesOf(schemas['ApiKey'])['apiVersion'] as Json)['enum'], VERSION_IDS);
      assert.deepEqual((propertiesOf(schemas['NewWebhook'])['apiVersion'] as Json)['enum'], served);
      assert.deepEqual(schemas['ApiKey']?.['required'], ['id', 'name', 'scopes', 'createdAt', 'expiresAt', 'revokedAt', 'apiVersion']);
    }
    assert.deepEqual(Object.keys(propertiesOf(schemas['ApiKeyPatch'])), ['name', 'apiVersion'], id);
    assert.ok(operationsOf(document).some((op) => op.key === 'PATCH /api/keys/{id}'), `${id}: the patch of a key`);
  }
  const withoutPatch = buildOpenApiDocument(openApiOptionsFor(loadConfig(env), routes.filter((route) => route.method !== 'PATCH' || route.pattern !== '/api/keys/{id}'), RESOURCES, VIEWS));
  assert.equal(schemasOf(withoutPatch)['ApiKeyPatch'], undefined, 'its schema is documented with its route only');
});

test('events and deliveries show each resource as the version does; a delivery says its version in Api-Version', () => {
  for (const id of VERSION_IDS) {
    const document = documentOf(id);
    const schemas = schemasOf(document);
    const data = propertiesOf(schemas['Event'])['data'] as { oneOf: Json[] };
    assert.deepEqual(data.oneOf, ALL_RESOURCES.map((resource) => ({ $ref: `#/components/schemas/${resource.title}` })));
    const example = (schemas['Event']?.['examples'] as Json[])[0] as Json;
    assert.deepEqual(validate(example['data'], { $ref: '#/components/schemas/Product' }, document), [], id);
    for (const [type, item] of Object.entries(document['webhooks'] as Record<string, { post: Json }>)) {
      const header = (item.post['parameters'] as Json[]).find((parameter) => parameter['name'] === 'Api-Version');
      assert.deepEqual([header?.['in'], header?.['required'], header?.['schema']], ['header', true, { type: 'string', const: id }], `${id} ${type}`);
    }
  }
});

test('every operation takes Api-Version, whose one value in a document is its version; the document and its page take ?version=', () => {
  for (const id of VERSION_IDS) {
    const document = documentOf(id);
    const parameters = (document['components'] as Record<string, Record<string, Json>>)['parameters'] ?? {};
    assert.deepEqual([parameters['ApiVersion']?.['name'], parameters['ApiVersion']?.['in'], parameters['ApiVersion']?.['schema']], ['Api-Version', 'header', { type: 'string', const: id }]);
    assert.deepEqual((parameters['DocumentVersion']?.['schema'] as Json)['enum'], VIEWS.servedAt().map((view) => view.id));
    for (const { key, operation } of operationsOf(document)) {
      const refs = (operation['parameters'] as Json[]).map((parameter) => parameter['$ref']);
      assert.ok(refs.includes('#/components/parameters/ApiVersion'), `${id} ${key}`);
      assert.equal(refs.includes('#/components/parameters/DocumentVersion'), /^GET \/api\/(openapi\.json|docs)$/.test(key), `${id} ${key}`);
    }
    const versions = operationsOf(document).find((op) => op.key === 'GET /api/versions')?.operation;
    assert.deepEqual([versions?.['security'], ((versions?.['responses'] as Record<string, Json>)['200']?.['content'] as Record<string, Json>)['application/json']?.['schema']], [[], { $ref: '#/components/schemas/Versions' }]);
  }
});

// Every response of every operation of `document`, with where it is.
function* responses(document: Json): Generator<[string, string, Json]> {
  for (const { key, operation } of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) yield [key, status, response];
  }
}

// A response's header `name`, its $ref followed.
function headerOf(document: Json, response: Json, name: string): Json | undefined {
  const header = (response['headers'] as Record<string, Json> | undefined)?.[name];
  return header?.['$ref'] === undefined ? header : (resolvePointer(document, String(header['$ref'])) as Json);
}

test('every response says its version: Api-Version and Vary, not required on a 400 (a version refused carries none); no Deprecation without a sunset', () => {
  for (const id of VERSION_IDS) {
    const document = documentOf(id);
    for (const [key, status, response] of responses(document)) {
      const apiVersion = headerOf(document, response, 'Api-Version');
      assert.deepEqual([apiVersion?.['required'], (apiVersion?.['schema'] as Json)['enum']], [status !== '400', [...VERSION_IDS].reverse()], `${id} ${key} ${status}`);
      assert.equal(headerOf(document, response, 'Vary')?.['required'], true, `${id} ${key} ${status}`);
      for (const name of ['Deprecation', 'Sunset']) assert.equal(headerOf(document, response, name), undefined, `${id} ${key} ${status} ${name}`);
    }
  }
});

test('a version with a sunset: Deprecation, Sunset and the deprecation Link on every response, as the version sends them; a page\'s Link holds both links', () => {
  const [oldest = '', ...later] = VERSION_IDS;
  const env = { SVC_API_SUNSET: `${oldest}=2099-06-30T00:00:00Z` };
  const going = versionsFor(env).all[0];
  const sent = new Map<string, string>();
  for (let i = 0; i < (going?.headers.length ?? 0); i += 2) sent.set(going?.headers[i] ?? '', going?.headers[i + 1] ?? '');
  const document = documentIn(oldest, env);
  for (const [key, status, response] of responses(document)) {
    for (const [name, header] of [['Deprecation', 'deprecation'], ['Sunset', 'sunset']] as const) {
      const documented = headerOf(document, response, name);
      assert.deepEqual([documented?.['required'], (documented?.['schema'] as Json)['const']], [status !== '400', sent.get(header)], `${key} ${status} ${name}`);
    }
    const link = headerOf(document, response, 'Link');
    assert.equal(link?.['required'], status !== '400', `${key} ${status} Link`);
    const schema = link?.['schema'] as Schema;
    const deprecation = sent.get('link') ?? '';
    // The deprecation link alone, or first before a page's next (which the feed always sends).
    if (schema['const'] !== undefined) assert.equal(schema['const'], deprecation, `${key} ${status}`);
    else assert.ok(String(schema['pattern']).startsWith(`^${deprecation.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(, `), `${key} ${status}`);
    if (key === 'GET /api/products' && status === '200') {
      assert.deepEqual(validate(deprecation, schema, document), [], 'the last page: the deprecation link alone');
      assert.deepEqual(validate(`${deprecation}, </api/products?limit=1&cursor=abc>; rel="next"`, schema, document), [], 'with the next page');
      assert.notDeepEqual(validate('</api/products?limit=1&cursor=abc>; rel="next"', schema, document), [], 'not without the deprecation');
    }
  }
  assert.match(sent.get('sunset') ?? '', /^Tue, 30 Jun 2099 00:00:00 GMT$/);
  assert.ok(String((document['info'] as Json)['description']).includes('going away'));
  for (const id of later) {
    const other = documentIn(id, env);
    for (const [key, status, response] of responses(other)) assert.equal(headerOf(other, response, 'Deprecation'), undefined, `${id} ${key} ${status}`);
  }
});

test('a server whose version goes away answers in it as its document says: Deprecation, Sunset, the Link (a page\'s next with it), none on a version refused', async () => {
  const [oldest = ''] = VERSION_IDS;
  const server = await startTestServer({ SVC_API_SUNSET: `${oldest}=2099-06-30T00:00:00Z` });
  try {
    const checker = new ConformanceChecker(await (await fetch(`${server.url}/api/openapi.json`)).json(), oldest);
    const body = validBody(products, 0, viewOf(oldest));
    for (const n of [0, 1]) await checker.check('POST', '/api/products', await postJson(`${server.url}/api/products`, { ...body, name: `Lamp ${n}` }));
    const first = await fetch(`${server.url}/api/products?limit=1`);
    const [deprecation, next] = (first.headers.get('link') ?? '').split(', ');
    assert.equal(deprecation, '</api/docs#versions>; rel="deprecation"');
    await checker.check('GET', '/api/products', first);
    const last = await fetch(`${server.url}${/^<([^>]+)>/.exec(next ?? '')?.[1] ?? ''}`);
    assert.equal(last.headers.get('link'), deprecation, 'the last page: the deprecation link alone');
    await checker.check('GET', '/api/products', last);
    await checker.check('GET', '/api/products/{id}', await fetch(`${server.url}/api/products/999999`));
    await checker.check('GET', '/api/events', await fetch(`${server.url}/api/events?limit=1`));
    const refused = await fetch(`${server.url}/api/products`, { headers: { 'api-version': '2026-13-01' } });
    assert.deepEqual([refused.status, refused.headers.get('deprecation'), refused.headers.get('api-version')], [400, null, null]);
    await checker.check('GET', '/api/products', refused);
    for (const name of ['deprecation', 'sunset']) assert.ok(first.headers.get(name) !== null, name);
  } finally {
    await server.stop();
  }
});

test('a version past its sunset is in no document: not in supportedVersions, not a ?version= to ask for, not a pin to send', () => {
  const gone = VERSION_IDS[1] ?? '';
  const env = { ...MODES.keys, SVC_API_SUNSET: `${gone}=2020-01-01T00:00:00Z` };
  const document = documentFor(env, RESOURCES, VERSION_IDS[0]);
  const served = VERSION_IDS.filter((id) => id !== gone).reverse();
  const problem = propertiesOf(schemasOf(document)['Problem']);
  assert.deepEqual(((problem['supportedVersions'] as Json)['items'] as Json)['enum'], served);
  const parameters = (document['components'] as Record<string, Record<string, Json>>)['parameters'] ?? {};
  assert.deepEqual((parameters['DocumentVersion']?.['schema'] as Json)['enum'], served);
  assert.throws(() => documentFor(env, RESOURCES, gone), /not served/);
  const refused = operationsOf(document).find((op) => op.key === 'GET /api/products')?.operation as Json;
  const example = (((refused['responses'] as Record<string, Json>)['400']?.['content'] as Record<string, Json>)['application/problem+json']?.['examples'] as Record<string, Json>)['unsupported_api_version'];
  assert.deepEqual((example?.['value'] as Json)['supportedVersions'], served);
});

test('the documents are made again when a sunset passes: the version gone from every enum, its document refused', async () => {
  const going = VERSION_IDS[1] ?? '';
  // A little ahead: the server starts, and its documents are made, while the version is still served.
  const server = await startTestServer({ SVC_API_SUNSET: `${going}=${new Date(Date.now() + 1_500).toISOString()}` });
  try {
    const enumOf = async (): Promise<unknown> => {
      const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
      return ((document['components'] as Record<string, Record<string, Json>>)['parameters']?.['DocumentVersion']?.['schema'] as Json)['enum'];
    };
    assert.deepEqual(await enumOf(), [...VERSION_IDS].reverse());
    assert.equal((await fetch(`${server.url}/api/docs?version=${going}`)).status, 200);
    for (const deadline = Date.now() + 10_000; (await fetch(`${server.url}/api/openapi.json?version=${going}`)).status !== 400; ) {
      assert.ok(Date.now() < deadline, 'the sunset passed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await enumOf(), [...VERSION_IDS].reverse().filter((id) => id !== going));
    assert.ok(!(await (await fetch(`${server.url}/api/docs`)).text()).includes(`?version=${going}`), 'the page no longer links it');
  } finally {
    await server.stop();
  }
});

// A throwaway fourth version, known to no file of src/openapi: its one change renames a field of a
// throwaway resource (`label`, before it `title`), attached to that resource's description.
const FOURTH = '2026-12-12';
const GAUGES = describeResource({
  plural: 'gauges',
  singular: 'gauge',
  summary: 'Gauges: a test resource, never shipped.',
  fields: { label: textField({ min: 1, max: 40, example: 'boiler' }), reading: integerField({ min: 0, max: 1000, example: 7 }) },
  events: { created: 47, updated: 48, deleted: 49 },
  exampleId: 3,
  changes: [
    {
      version: FOURTH,
      fieldsBefore: (fields: FieldTable) => Object.fromEntries(Object.entries(fields).map(([name, field]) => [name === 'label' ? 'title' : name, field])),
    },
  ],
});

test('a fourth version added with one change (a field renamed) changes the documents by itself: the new name in it, the old one before', () => {
  const versions = buildVersions([...VERSIONS, { version: FOURTH, summary: 'Gauges: title becomes label.' }], [...RESOURCES, GAUGES], { at: new Map(), announcedAt: 0 });
  const config = loadConfig({});
  const item = `${GAUGES.path}/{id}`;
  const gaugeRoutes = [['GET', GAUGES.path], ['POST', GAUGES.path], ['GET', item], ['PATCH', item], ['DELETE', item]].map(([method = '', pattern = '']) => ({ method, pattern, access: 'open' as const }));
  const routes = [...routesFor({}), ...gaugeRoutes];
  const documented = (id: string): Json => buildOpenApiDocument(openApiOptionsFor(config, routes, [...RESOURCES, GAUGES], versions, id));
  const before = VERSION_IDS.at(-1) ?? '';
  const [fourth, third] = [documented(FOURTH), documented(before)];
  assert.equal((fourth['info'] as Json)['version'], FOURTH);
  assert.deepEqual(Object.keys(propertiesOf(schemasOf(fourth)['Gauge'])), ['id', 'label', 'reading', 'createdAt', 'updatedAt']);
  assert.deepEqual(Object.keys(propertiesOf(schemasOf(third)['Gauge'])), ['id', 'title', 'reading', 'createdAt', 'updatedAt']);
  // Nothing else changed: the other resources and the lists are as the version before shows them.
  for (const resource of RESOURCES) {
    for (const name of [resource.title, `New${resource.title}`, `${resource.title}Patch`]) assert.deepEqual(schemasOf(fourth)[name], schemasOf(third)[name], name);
  }
  assert.deepEqual([...listSchemas(fourth).values()], [...listSchemas(third).values()]);
});

test('no file of src/openapi/ or src/docs-page/ names a version: the documents follow the versions\' own modules', () => {
  for (const folder of ['src/openapi/', 'src/docs-page/']) {
    for (const file of readdirSync(new URL(`../../${folder}`, import.meta.url))) {
      const text = readFileSync(new URL(`../../${folder}${file}`, import.meta.url), 'utf8');
      for (const id of VERSION_IDS) assert.ok(!text.includes(id), `${folder}${file} names ${id}`);
    }
  }
});
