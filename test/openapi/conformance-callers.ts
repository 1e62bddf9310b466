import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCOPE_NAMES, type ScopeName } from '../../src/callers/scopes.ts';
import { bearer, guessedKey } from '../support/keys.ts';
import { rawRequest } from '../support/raw-http.ts';
import { type ConformanceRun, responseOf } from './conformance-run.ts';
import { validBody } from '../support/resources.ts';
import { postJson } from '../support/server.ts';
import { type RefusedCredential, refusedTokens, type ScopedCredentials, tokenByTheDocument } from './conformance-tokens.ts';
import { operationsOf, responseOf as documentedResponse } from './operations.ts';

// 401 and 403 wherever the document lists them, every way a credential can be missing or bad; the
// answers outside any operation (unknown path, 405, what node:http cannot parse); and with jwt, the
// document's directions to a token, followed against the provider the service trusts.
type Json = Record<string, unknown>;
// The headers of an API version (docs/versions.md), which only answers under /api carry.
const VERSION_HEADERS = ['Api-Version', 'Vary', 'Deprecation', 'Sunset', 'Link'];

// Where each operation is sent: an id that names nothing, so an operation let through changes nothing.
function urlOf(run: ConformanceRun, key: string): { method: string; pattern: string; url: string } {
  const [method = '', pattern = ''] = key.split(' ');
  return { method, pattern, url: `${run.url}${pattern.replace('{id}', pattern.startsWith('/api/keys') ? 'AAAAAAAAAAAA' : '999999')}` };
}

// The credentials that are not good enough, each with the challenge it gets: none, then presented and refused.
async function refusedCredentials(run: ConformanceRun): Promise<RefusedCredential[]> {
  const missing: RefusedCredential = [{}, /^Bearer$/];
  if (run.mode === 'off') return [];
  if (run.mode === 'jwt') return refusedTokens(run.provider);
  if (run.mode === 'token') return [missing, [bearer('wrong-token-0123456789'), /^Bearer$/], [{ authorization: 'Basic dXNlcjpwdw==' }, /^Bearer$/]];
  const revoked = await run.newKey({ name: 'revoked', scopes: ['admin'] });
  assert.equal((await run.remove(`/api/keys/${revoked.id}`)).status, 204);
  const invalid = /^Bearer error="invalid_token", error_description="[^"]+"$/;
  return [missing, [bearer('not-a-key'), invalid], [bearer(guessedKey()), invalid], [bearer(revoked.key), invalid]];
}

// The scope an operation states in its `security`, or undefined when it states none.
function statedScope(operation: Json): ScopeName | undefined {
  const requirement = (operation['security'] as Record<string, string[]>[])[0] ?? {};
  return Object.values(requirement)[0]?.[0] as ScopeName | undefined;
}

// The valid credentials below the scope an operation states and those that hold it; none below when
// none holds less (every key holds `read`; a token may hold none of the service's scopes).
function credentialsAround(run: ConformanceRun, operation: Json): { below: string[]; holding: [ScopeName, string][] } {
  const needed = statedScope(operation);
  if (!run.scoped || needed === undefined) return { below: [], holding: [] };
  const levels: (keyof ScopedCredentials)[] = ['none', ...SCOPE_NAMES];
  const at = levels.indexOf(needed);
  const below = levels.slice(0, at).flatMap((level) => run.credentials[level] ?? []);
  return { below, holding: SCOPE_NAMES.slice(at - 1).map((scope) => [scope, run.credentials[scope]]) };
}

/**
 * Registers the tests of 401 and 403. Every operation is sent every credential that is not good
 * enough, every valid one below the scope it states, and every one that holds it: whatever it
 * answers must be documented (a 401 or 403 the document leaves out fails), every 401 and 403 it
 * documents must be met, and a credential good enough meets neither.
 */
export function callerTests(run: ConformanceRun): void {
  test('every operation answers a missing or bad credential as documented: 401 wherever it lists one', async () => {
    const credentials = await refusedCredentials(run);
    for (const { key, operation } of operationsOf(run.document)) {
      const { method, pattern, url } = urlOf(run, key);
      const listed = documentedResponse(operation, 401) !== undefined;
      // Where no 401 is listed (an open operation, a read with SVC_API_TOKEN), no bad credential may bring one.
      for (const [headers, challenge] of credentials.length > 0 ? credentials : [[{}, /^/] as const]) {
        const checked = await run.checker.check(method, pattern, await fetch(url, { method, headers }));
        assert.equal(checked.status === 401, listed, `${key} with ${JSON.stringify(headers)}: ${checked.status}`);
        if (listed) assert.match(checked.headers.get('www-authenticate') ?? '', challenge, key);
      }
    }
  });

  scopeTests(run);
}

function scopeTests(run: ConformanceRun): void {
  test('every operation answers a valid credential below the scope it states as documented: 403 wherever it lists one', async () => {
    for (const { key, operation } of operationsOf(run.document)) {
      const listed = documentedResponse(operation, 403) !== undefined;
      const { below } = credentialsAround(run, operation);
      assert.ok(below.length > 0 || !listed, `${key}: a 403 is documented, yet every credential holds the scope it names`);
      const { method, pattern, url } = urlOf(run, key);
      for (const credential of below) {
        const checked = await run.checker.check(method, pattern, await fetch(url, { method, headers: bearer(credential) }));
        assert.deepEqual([checked.status, (checked.body as Json)['code']], [403, 'forbidden'], key);
        assert.equal(checked.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="${statedScope(operation) ?? ''}"`, key);
      }
    }
  });

  if (!run.scoped) return;
  test('every operation lets a credential with the scope it states, or a higher one, through: never 401 or 403', async () => {
    let sent = 0;
    for (const { key, operation } of operationsOf(run.document)) {
      const { method, pattern, url } = urlOf(run, key);
      for (const [scope, credential] of credentialsAround(run, operation).holding) {
        const checked = await run.checker.check(method, pattern, await fetch(url, { method, headers: bearer(credential) }));
        assert.ok(checked.status !== 401 && checked.status !== 403, `${key} with ${scope}: ${checked.status}`);
        sent++;
      }
    }
    assert.ok(sent > 0, 'no operation states a scope');
  });
}

/** Registers the test of the answers outside any operation; with SVC_AUTH on, a stranger gets 401 before 404 or 405. */
export function outsideOperationTests(run: ConformanceRun): void {
  test('answers outside any operation (unknown path, 405, unparseable HTTP, 414, 431) are documented problems', async () => {
    const problem = { $ref: '#/components/schemas/Problem' };
    const code = async (res: Response, mayLack: readonly string[] = []): Promise<unknown> => ((await run.checker.checkOutsideOperations(res, problem, mayLack)) as Json)['code'];
    // What node:http cannot parse has no path, so it is under no /api: no API version is said.
    const unparsed = async (res: Response): Promise<unknown> => code(res, VERSION_HEADERS);
    assert.equal(await code(await run.get('/api/nothing-here')), 'not_found');
    const notAllowed = await run.get('/api/ping', { method: 'DELETE' });
    assert.equal(notAllowed.headers.get('allow'), 'GET, HEAD');
    assert.equal(await code(notAllowed), 'method_not_allowed');
    if (run.scoped) {
      for (const path of ['/api/nothing-here', '/api/ping']) {
        const stranger = await fetch(`${run.url}${path}`, { method: 'DELETE' });
        assert.equal(stranger.headers.get('www-authenticate'), 'Bearer');
        assert.equal(await code(stranger), 'unauthorized', `${path}: 401 before 404 or 405`);
      }
    }
    assert.equal(await unparsed(responseOf(await rawRequest(run.url, 'GARBAGE / HTTP/1.1\r\nHost: x'))), 'bad_request');
    const [sample] = run.resources;
    assert.equal(await unparsed(responseOf(await rawRequest(run.url, `GET ${sample?.path ?? '/api/ping'}?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x`))), 'uri_too_long');
    assert.equal(await unparsed(responseOf(await rawRequest(run.url, `GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}`))), 'headers_too_large');
  });
}

/** Registers the test that a client following the jwt document's directions to a token gets one the service takes. */
export function tokenDirectionsTest(run: ConformanceRun): void {
  test('a token got as the document directs (discovery, token endpoint, audience) is taken', async () => {
    const token = await tokenByTheDocument(run.document, run.provider);
    // One resource as the sample: the token is the same for every operation.
    const [sample] = run.resources;
    assert.ok(sample !== undefined);
    const made = await run.expectStatus('POST', sample.path, postJson(`${run.url}${sample.path}`, validBody(sample, 0, run.version), bearer(token)), 201);
    await run.expectStatus('GET', `${sample.path}/{id}`, fetch(`${run.url}${sample.path}/${String(made['id'])}`, { headers: bearer(token) }), 200);
  });
}

/** Registers, last, the test that the run never made the service fetch the provider's keys again. */
export function keysFetchedOnceTest(run: ConformanceRun): void {
  test('the provider was asked for its keys once: no answer needed a refetch (the JWKS cooldown is 30 s)', () => {
    assert.equal(run.provider.requests('/jwks'), 1);
  });
}
