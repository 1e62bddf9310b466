import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConformanceRun } from './conformance-run.ts';
import { operationsOf } from './operations.ts';

// The API versions (docs/versions.md): GET /api/versions, and the 400 of a version not served, met on
// every operation, before any other check, and checked against the document of the run's version.
type Json = Record<string, unknown>;

// Versions no service serves: a date with no thirteenth month, one from before versions existed, a malformed one.
const UNSERVED = ['2026-13-01', '1999-01-01', 'v2'];

// Where each operation is sent: an id that names nothing, so an operation let through changes nothing.
function urlOf(run: ConformanceRun, key: string): { method: string; pattern: string; url: string } {
  const [method = '', pattern = ''] = key.split(' ');
  const path = pattern.replace('{id}', pattern.startsWith('/api/keys') ? 'AAAAAAAAAAAA' : '999999').replace('{eventId}', '1');
  return { method, pattern, url: `${run.url}${path}` };
}

/** Registers the tests of GET /api/versions and of the versions a run's server does not serve. */
export function versionTests(run: ConformanceRun): void {
  test('GET /api/versions conforms, with HEAD: every version served, the run\'s the default', async () => {
    const listed = await run.expectStatus('GET', '/api/versions', run.get('/api/versions'), 200);
    await run.expectStatus('HEAD', '/api/versions', run.get('/api/versions', { method: 'HEAD' }), 200);
    assert.equal(listed['default'], run.version.id);
    assert.ok((listed['versions'] as Json[]).some((entry) => entry['version'] === run.version.id));
  });

  test('every operation answers a version it does not serve with 400 unsupported_api_version as documented, before credentials', async () => {
    const served = ((await (await run.get('/api/versions')).json()) as { versions: Json[] }).versions.map((entry) => entry['version']);
    for (const { key } of operationsOf(run.document)) {
      const { method, pattern, url } = urlOf(run, key);
      for (const version of UNSERVED) {
        // With the credential the operation needs, with none, and with a bad one: the version is judged first.
        for (const credential of [run.auth(method), {}, { authorization: 'Bearer not-a-credential' }]) {
          const answer = await fetch(url, { method, headers: { ...credential, 'api-version': version } });
          const refused = await run.expectStatus(method, pattern, answer, 400);
          assert.deepEqual([refused['code'], refused['supportedVersions'], answer.headers.get('api-version')], ['unsupported_api_version', served, null], `${key} ${version}`);
        }
      }
    }
    for (const path of ['/api/openapi.json', '/api/docs']) {
      // `?version=` wins over the header, refused or not.
      const refused = await run.expectStatus('GET', path, run.get(`${path}?version=2026-13-01`, { headers: { 'api-version': run.version.id } }), 400);
      assert.equal(refused['code'], 'unsupported_api_version');
    }
  });
}
