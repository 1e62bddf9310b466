import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Scope } from '../../src/callers/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument, openApiOptionsFor } from '../../src/openapi/document.ts';
import { ALL_RESOURCES, RESOURCES } from '../support/resources.ts';
import { documentOf as documentServing, MODES, type Mode, routesFor, versionsFor } from './documents.ts';
import { operationsOf, responseOf } from './operations.ts';

// What the document says about callers in each mode: the scheme it declares, the scope each
// operation states (security, description, 403 challenge), and where 401 and 403 are listed; for
// every operation of every resource served (the service's and the throwaway one).
type Json = Record<string, unknown>;
const documentOf = (mode: Mode): Json => documentServing(mode, true, ALL_RESOURCES);
const SCHEME: Readonly<Record<Mode, string | null>> = { off: null, token: 'bearerAuth', keys: 'apiKey', jwt: 'accessToken' };

// Written out here, apart from the routes: the scope each operation needs with SVC_AUTH on.
function neededScope(key: string): string | null {
  if (/^GET \/api\/(ping|openapi\.json|docs|versions)$/.test(key)) return null;
  if (key.includes('/api/keys') || key.includes('/api/webhooks')) return 'admin';
  return key.startsWith('GET ') ? 'read' : 'write';
}

// The scopes that allow an operation needing each one, as the description lists them.
const ALLOWED_BY: Readonly<Record<string, string>> = { read: '`read`, `write` or `admin`', write: '`write` or `admin`', admin: '`admin`' };

function expectedSecurity(mode: Mode, key: string): Json[] {
  const scope = neededScope(key);
  if (mode === 'off') return [];
  // The token guards the writes, and every operation of the webhooks (reads included).
  if (mode === 'token') return /^(POST|PATCH|DELETE) /.test(key) || key.includes(' /api/webhooks') ? [{ bearerAuth: [] }] : [];
  return scope === null ? [] : [{ [SCHEME[mode] ?? '']: [scope] }];
}

test('each operation states the security it needs, in every mode: the scope of its route, or [] when open', () => {
  for (const mode of Object.keys(MODES) as Mode[]) {
    const operations = operationsOf(documentOf(mode));
    assert.ok(operations.length >= 13, mode);
    for (const { key, operation } of operations) assert.deepEqual(operation['security'], expectedSecurity(mode, key), `${mode}: ${key}`);
  }
});

test('with SVC_AUTH on, the description says the scope too, and an open operation says it is open', () => {
  for (const mode of ['keys', 'jwt'] as const) {
    for (const { key, operation } of operationsOf(documentOf(mode))) {
      const scope = neededScope(key);
      const description = String(operation['description']);
      if (scope === null) assert.match(description, /Open: needs no credential\.$/, `${mode}: ${key}`);
      else assert.ok(description.endsWith(`\n\nNeeds the \`${scope}\` scope: ${mode === 'keys' ? 'an API key' : 'an access token'} with ${ALLOWED_BY[scope]}.`), `${mode}: ${key}`);
    }
  }
  for (const { key, operation } of operationsOf(documentOf('token'))) assert.doesNotMatch(String(operation['description']), /scope|Open:/, key);
});

test('a 401 carries the WWW-Authenticate challenge; a 403 the insufficient_scope challenge naming the scope of its operation', () => {
  for (const mode of Object.keys(MODES) as Mode[]) {
    for (const { key, operation } of operationsOf(documentOf(mode))) {
      const unauthorized = responseOf(operation, 401);
      if (unauthorized !== undefined) assert.deepEqual((unauthorized['headers'] as Json)['WWW-Authenticate'], { $ref: '#/components/headers/WwwAuthenticate' }, key);
      const forbidden = responseOf(operation, 403);
      if (forbidden === undefined) continue;
      const challenge = ((forbidden['headers'] as Json)['WWW-Authenticate'] as { schema: Json }).schema;
      assert.deepEqual(challenge, { type: 'string', const: `Bearer error="insufficient_scope", scope="${neededScope(key) ?? ''}"` }, `${mode}: ${key}`);
    }
  }
  const headers = (mode: Mode): Record<string, Json> => (documentOf(mode)['components'] as Record<string, Record<string, Json>>)['headers'] ?? {};
  assert.equal(headers('off')['WwwAuthenticate'], undefined);
  assert.deepEqual(headers('token')['WwwAuthenticate']?.['schema'], { type: 'string', const: 'Bearer' });
  const pattern = new RegExp(String((headers('keys')['WwwAuthenticate']?.['schema'] as Json)['pattern']));
  for (const good of ['Bearer', 'Bearer error="invalid_token", error_description="The API key has been revoked."']) assert.match(good, pattern);
  for (const bad of ['Basic', 'Bearer error="insufficient_scope"', 'Bearer error="invalid_token", error_description="a"b"']) assert.doesNotMatch(bad, pattern);
});

test('the document declares the one bearer scheme the service runs with', () => {
  const schemes = (mode: Mode): Json | undefined => (documentOf(mode)['components'] as Json)['securitySchemes'] as Json | undefined;
  assert.equal(schemes('off'), undefined);
  assert.deepEqual(Object.keys(schemes('token') ?? {}), ['bearerAuth']);
  const key = (schemes('keys') ?? {})['apiKey'] as Json;
  assert.deepEqual([Object.keys(schemes('keys') ?? {}), key['type'], key['scheme'], key['bearerFormat']], [['apiKey'], 'http', 'bearer', undefined]);
  for (const said of ['svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}', 'node bin/keys.js create', 'POST /api/keys', '66 characters']) assert.ok(String(key['description']).includes(said), said);
});

test('the jwt document: a JWT bearer scheme naming the issuer, the audience and where to get a token; 403 on every operation that is not open', () => {
  const document = documentOf('jwt');
  const schemes = (document['components'] as Json)['securitySchemes'] as Record<string, Json>;
  assert.deepEqual(Object.keys(schemes), ['accessToken']);
  const { type, scheme, bearerFormat, description } = schemes['accessToken'] ?? {};
  assert.deepEqual([type, scheme, bearerFormat], ['http', 'bearer', 'JWT']);
  const { SVC_JWT_ISSUER: issuer, SVC_JWT_AUDIENCE: audience } = MODES.jwt;
  for (const said of [`\`${issuer}\``, `\`${audience}\``, `${issuer}/.well-known/openid-configuration`, 'RFC 9068', '`scope`', '`scp`']) {
    assert.ok(String(description).includes(said), said);
  }
  assert.ok(String((document['info'] as Json)['description']).includes(`\`${issuer}\``), 'the page shows it too');
  for (const { key, operation } of operationsOf(document)) {
    const statuses = Object.keys(operation['responses'] as Json);
    const open = neededScope(key) === null;
    assert.deepEqual([statuses.includes('401'), statuses.includes('403')], [!open, !open], key);
  }
  // A token may grant none of the service's scopes; a key holds at least `read`.
  const reads = operationsOf(documentOf('keys')).filter(({ key }) => neededScope(key) === 'read');
  assert.ok(reads.length >= 2 * ALL_RESOURCES.length);
  for (const { key, operation } of reads) assert.equal(responseOf(operation, 403), undefined, key);
});

test('a key can be revoked, a token cannot: each document names the refusals its mode has', () => {
  const said = (mode: Mode): { info: string; challenge: string } => {
    const document = documentOf(mode);
    const headers = (document['components'] as Record<string, Record<string, Json>>)['headers'] ?? {};
    return { info: String((document['info'] as Json)['description']), challenge: String(headers['WwwAuthenticate']?.['description']) };
  };
  const keys = said('keys');
  const jwt = said('jwt');
  assert.match(keys.info, /\(missing, malformed, unknown, expired or revoked\) the answer is 401/);
  assert.match(keys.challenge, /\(expired, revoked\)\.$/);
  assert.match(jwt.info, /of another issuer or audience, expired or not yet valid\) the answer is 401/);
  assert.match(jwt.info, /A token revoked at the provider is still taken until it expires/);
  assert.doesNotMatch(jwt.challenge, /revoked/);
});

test('a route documents itself: its access, whatever it is, is the scope the document states', () => {
  const env = MODES.keys;
  // One resource's list as the sample.
  const [sample] = RESOURCES;
  assert.ok(sample !== undefined);
  const routes = routesFor(env).map((route) => (route.method === 'GET' && route.pattern === sample.path ? { ...route, access: Scope.admin } : route));
  const versions = versionsFor(env);
  const document = buildOpenApiDocument(openApiOptionsFor(loadConfig(env), routes, RESOURCES, versions));
  const list = operationsOf(document).find((op) => op.key === `GET ${sample.path}`)?.operation ?? {};
  assert.deepEqual(list['security'], [{ apiKey: ['admin'] }]);
  assert.ok(responseOf(list, 403) !== undefined, 'a read key can now lack its scope');
  const unserved = buildOpenApiDocument(openApiOptionsFor(loadConfig(env), routes.filter((route) => route.method !== 'DELETE'), RESOURCES, versions));
  assert.ok(!operationsOf(unserved).some((op) => op.key.startsWith('DELETE ')), 'an operation whose route is not served is not documented');
});
