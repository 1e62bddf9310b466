import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MadeKey, bearer, type KeysServer, startKeysServer } from '../support/keys.ts';
import { patchJson, postJson } from '../support/server.ts';

// A key pins the API version its requests get without Api-Version (docs/versions.md): POST /api/keys
// sets it where the request's version has the member (else the request's version), PATCH
// /api/keys/{id} moves it in every version, and the next header-less answer follows at once. The
// PostgreSQL pass runs this file too.
const [FIRST, LISTS, NEWEST] = ['2026-11-21', '2026-11-28', '2026-12-05'];
type Json = Record<string, unknown>;

describe('keys pinned to a version', () => {
  let server: KeysServer;
  before(async () => {
    server = await startKeysServer();
  });
  after(() => server.stop());

  const at = (path: string): string => `${server.url}${path}`;
  const asAdmin = (version?: string): Record<string, string> => ({ ...bearer(server.admin.key), ...(version === undefined ? {} : { 'api-version': version }) });
  const create = (body: unknown, version?: string): Promise<Response> => postJson(at('/api/keys'), body, asAdmin(version));
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}, version?: string): Promise<Response> =>
    patchJson(at(`/api/keys/${id}`), body, { ...asAdmin(version), ...headers });
  const read = (id: string, version?: string, headers: Record<string, string> = {}): Promise<Response> => fetch(at(`/api/keys/${id}`), { headers: { ...asAdmin(version), ...headers } });
  const pointers = async (response: Response): Promise<string[]> => ((await response.json()) as { errors: Json[] }).errors.map((error) => `${error['pointer']} ${error['code']}`);
  // A header-less list made with `key`: its version, and whether its body is an array (2026-11-21) or an object (2026-11-28 on).
  const listShape = async (key: MadeKey): Promise<[string | null, string]> => {
    const answer = await fetch(at('/api/products'), { headers: bearer(key.key) });
    assert.equal(answer.status, 200);
    const body: unknown = await answer.json();
    return [answer.headers.get('api-version'), Array.isArray(body) ? 'array' : Object.keys(body as Json).join(',')];
  };

  test('POST in a version without the member pins that version, and apiVersion is unknown_field there; the key answers in it', async () => {
    const made = (await (await create({ name: 'old', scopes: ['read'] })).json()) as MadeKey;
    assert.ok(!Object.hasOwn(made, 'apiVersion'), 'the first version shows no apiVersion');
    assert.deepEqual(await listShape(made), [FIRST, 'array']);
    const shown = (await (await read(made.id, LISTS)).json()) as Json;
    assert.equal(shown['apiVersion'], FIRST);
    const refused = await create({ name: 'x', scopes: ['read'], apiVersion: NEWEST });
    assert.equal(refused.status, 422);
    assert.deepEqual(await pointers(refused), ['/apiVersion unknown_field']);
  });

  test('POST where the version has the member: apiVersion pins any version served, else the request\'s; a bad one is 422 invalid_enum', async () => {
    const pinned = await create({ name: 'new', scopes: ['read'], apiVersion: NEWEST }, LISTS);
    assert.equal(pinned.status, 201);
    const made = (await pinned.json()) as MadeKey;
    assert.deepEqual(Object.keys(made), ['id', 'name', 'scopes', 'createdAt', 'expiresAt', 'revokedAt', 'apiVersion', 'key']);
    assert.equal(made.apiVersion, NEWEST);
    assert.deepEqual(await listShape(made), [NEWEST, 'data,hasMore']);
    const defaulted = (await (await create({ name: 'same', scopes: ['read'] }, LISTS)).json()) as MadeKey;
    assert.equal(defaulted.apiVersion, LISTS, "the request's version");
    assert.equal(((await (await create({ name: 'oldest', scopes: ['read'], apiVersion: FIRST }, NEWEST)).json()) as MadeKey).apiVersion, FIRST, 'an older version too');
    const before = await server.database.countRows('api_keys');
    for (const [apiVersion, code] of [['2026-11-22', 'invalid_enum'], ['latest', 'invalid_enum'], [20261205, 'type'], [null, 'type']] as const) {
      const refused = await create({ name: 'x', scopes: ['read'], apiVersion }, NEWEST);
      assert.equal(refused.status, 422);
      assert.deepEqual(await pointers(refused), [`/apiVersion ${code}`], String(apiVersion));
    }
    assert.equal(await server.database.countRows('api_keys'), before);
  });

  test('a key moved to another version changes its next header-less answer, and back; a key may move itself', async () => {
    const reader = await server.newKey({ name: 'reader', scopes: ['read'] });
    assert.deepEqual(await listShape(reader), [FIRST, 'array']);
    const moved = await patch(reader.id, { apiVersion: LISTS });
    assert.equal(moved.status, 200);
    assert.deepEqual(await listShape(reader), [LISTS, 'data,hasMore'], 'at once, on the process that answered');
    assert.equal((await patch(reader.id, { apiVersion: FIRST }, {}, NEWEST)).status, 200);
    assert.deepEqual(await listShape(reader), [FIRST, 'array'], 'and back');
    const admin = await server.newKey({ name: 'admin', scopes: ['admin'] });
    assert.equal((await patchJson(at(`/api/keys/${admin.id}`), { apiVersion: NEWEST }, bearer(admin.key))).status, 200);
    assert.deepEqual(await listShape(admin), [NEWEST, 'data,hasMore']);
  });

  test('an open route answers a pinned key in its version; a key it cannot read leaves the default, never a 401', async () => {
    const pinned = await server.newKey({ name: 'docs reader', scopes: ['read'] });
    assert.equal((await patch(pinned.id, { apiVersion: NEWEST })).status, 200);
    for (const path of ['/api/openapi.json', '/api/ping', '/api/versions']) {
      const answer = await fetch(at(path), { headers: bearer(pinned.key) });
      assert.deepEqual([answer.status, answer.headers.get('api-version')], [200, NEWEST], path);
      const unknown = await fetch(at(path), { headers: { authorization: 'Bearer svc_not-a-key' } });
      assert.deepEqual([unknown.status, unknown.headers.get('api-version')], [200, FIRST], `${path}, an unknown key`);
    }
    const document = (await (await fetch(at('/api/openapi.json'), { headers: bearer(pinned.key) })).json()) as { info: Json };
    assert.equal(document.info['version'], NEWEST, "the document of the key's version");
  });

  test('PATCH: every field error at once, in every version; nothing changes', async () => {
    const key = await server.newKey({ name: 'target', scopes: ['read'] });
    const cases: [unknown, string[]][] = [
      [{ name: '', apiVersion: '2026-13-01', scopes: ['admin'], revokedAt: null }, ['/name too_short', '/apiVersion invalid_enum', '/scopes unknown_field', '/revokedAt unknown_field']],
      [{ name: null, apiVersion: null }, ['/name type', '/apiVersion type']],
      [{ name: 'x'.repeat(201), apiVersion: 5 }, ['/name too_long', '/apiVersion type']],
      [{ name: 'a\u0007b' }, ['/name invalid_characters']],
      [[{ name: 'x' }], [' type']],
    ];
    for (const version of [FIRST, NEWEST]) {
      for (const [body, expected] of cases) {
        const answer = await patch(key.id, body, {}, version);
        assert.equal(answer.status, 422, JSON.stringify(body));
        assert.deepEqual(await pointers(answer), expected, `${version} ${JSON.stringify(body)}`);
      }
    }
    const unchanged = await read(key.id, LISTS);
    assert.equal(unchanged.headers.get('etag'), '"1.1"');
    assert.deepEqual([((await unchanged.json()) as Json)['name'], ((await (await read(key.id, LISTS)).json()) as Json)['apiVersion']], ['target', FIRST]);
    for (const [contentType, status] of [['text/plain', 415], ['application/json', 200], ['application/merge-patch+json; charset=UTF-8', 200]] as const) {
      assert.equal((await patch(key.id, { name: 'target' }, { 'content-type': contentType })).status, status, contentType);
    }
  });

  test('ETags: every change moves the tag in every version, the versions\' tags differ, preconditions compare with the request\'s own', async () => {
    const key = await server.newKey({ name: 'tagged', scopes: ['read'] });
    const tagOf = async (version: string): Promise<string | null> => (await read(key.id, version)).headers.get('etag');
    assert.deepEqual([await tagOf(FIRST), await tagOf(LISTS), await tagOf(NEWEST)], ['"1"', '"1.1"', '"1.1"']);
    // A change 2026-11-21 cannot show (its apiVersion) still moves its tag.
    const moved = await patch(key.id, { apiVersion: NEWEST }, { 'if-match': '"1"' });
    assert.deepEqual([moved.status, moved.headers.get('etag')], [200, '"2"']);
    assert.deepEqual(await moved.json(), (await (await read(key.id)).json()) as Json, 'the answer is the key as now stored, in the request\'s version');
    assert.equal(await tagOf(LISTS), '"2.1"');
    // A tag of the version before, or of another version's representation: 412, and nothing changes.
    for (const [ifMatch, version] of [['"1"', FIRST], ['"2.1"', FIRST], ['"2"', LISTS]] as const) {
      const refused = await patch(key.id, { name: 'lost' }, { 'if-match': ifMatch }, version);
      assert.equal(refused.status, 412, `${ifMatch} in ${version}`);
    }
    assert.equal((await patch(key.id, { name: 'lost' }, { 'if-none-match': '*' })).status, 412);
    assert.equal((await patch(key.id, { name: 'lost' }, { 'if-none-match': '"2"' })).status, 412);
    assert.equal((await patch(key.id, { name: 'lost' }, { 'if-match': 'no quotes' })).status, 400);
    // A patch that changes nothing: 200, the same tag; If-Match with the current tag of that version passes.
    for (const body of [{}, { name: 'tagged' }, { apiVersion: NEWEST }, { name: ' tagged ', apiVersion: NEWEST }]) {
      const same = await patch(key.id, body, { 'if-match': '"2.1"' }, LISTS);
      assert.deepEqual([same.status, same.headers.get('etag')], [200, '"2.1"'], JSON.stringify(body));
    }
    const renamed = await patch(key.id, { name: 'renamed' }, { 'if-match': '"2.1"' }, NEWEST);
    assert.deepEqual([renamed.status, renamed.headers.get('etag'), ((await renamed.json()) as Json)['name']], [200, '"3.1"', 'renamed']);
    assert.equal((await read(key.id, FIRST, { 'if-none-match': '"3"' })).status, 304);
    assert.equal((await read(key.id, FIRST, { 'if-none-match': '"2"' })).status, 200);
    // The revocation moves it too, and a revoked key may still be renamed or moved (it stays refused).
    assert.equal((await fetch(at(`/api/keys/${key.id}`), { method: 'DELETE', headers: { ...asAdmin(), 'if-match': '"3"' } })).status, 204);
    assert.equal(await tagOf(FIRST), '"4"');
    assert.equal((await patch(key.id, { apiVersion: LISTS }, { 'if-match': '"4"' })).headers.get('etag'), '"5"');
    assert.equal((await fetch(at('/api/products'), { headers: bearer(key.key) })).status, 401);
  });
});

describe('a key whose version is past its sunset', () => {
  let server: KeysServer;
  before(async () => {
    // The first version went away in 2020; the admin key, made by createApiKey without settings, pins it.
    server = await startKeysServer({ SVC_API_SUNSET: `${FIRST}=2020-01-01T00:00:00Z`, SVC_API_VERSION: LISTS });
  });
  after(() => server.stop());

  test('gets 400 unsupported_api_version without the header (readiness and the versions excepted); a PATCH with the header moves it back into service', async () => {
    const key = server.admin;
    const headerless = (path: string): Promise<Response> => fetch(`${server.url}${path}`, { headers: bearer(key.key) });
    const refused = await headerless('/api/products');
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('api-version'), null);
    const problem = (await refused.json()) as { code: string; supportedVersions: string[]; detail: string };
    assert.deepEqual([problem.code, problem.supportedVersions], ['unsupported_api_version', [NEWEST, LISTS]]);
    assert.match(problem.detail, /PATCH \/api\/keys\/\{id\}/);
    // Readiness and the list of versions are never refused for it.
    for (const path of ['/api/ping', '/api/versions']) {
      const answer = await headerless(path);
      assert.equal(answer.status, 200, path);
      assert.ok([LISTS, NEWEST].includes(String(answer.headers.get('api-version'))), path);
    }
    // With a version it names, the key is served, and may be moved, but not to a version past its sunset.
    const url = `${server.url}/api/keys/${key.id}`;
    const named = { ...bearer(key.key), 'api-version': LISTS };
    const toSunset = await patchJson(url, { apiVersion: FIRST }, named);
    assert.equal(toSunset.status, 422);
    assert.deepEqual(((await toSunset.json()) as { errors: Json[] }).errors.map((error) => `${error['pointer']} ${error['code']}`), ['/apiVersion invalid_enum']);
    assert.equal((await postJson(`${server.url}/api/keys`, { name: 'x', scopes: ['read'], apiVersion: FIRST }, named)).status, 422);
    const moved = await patchJson(url, { apiVersion: NEWEST }, named);
    assert.deepEqual([moved.status, ((await moved.json()) as Json)['apiVersion']], [200, NEWEST]);
    const served = await headerless('/api/products');
    assert.deepEqual([served.status, served.headers.get('api-version')], [200, NEWEST]);
    assert.deepEqual(Object.keys((await served.json()) as Json), ['data', 'hasMore']);
  });
});
