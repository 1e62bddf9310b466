import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawRequest } from '../support/raw-http.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, unknown>;
// Disabled: nothing is ever sent anywhere.
const HOOK = { url: 'https://hooks.example.com/review', status: 2 };

// Answers a contract review of the webhooks (docs/webhooks.md) found the service gave differently.
describe('webhooks: contract review', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  const made = async (): Promise<Json> => {
    const response = await postJson(`${server.url}/api/webhooks`, HOOK);
    assert.equal(response.status, 201);
    return (await response.json()) as Json;
  };
  const host = (): string => new URL(server.url).host;

  test('rotate-secret: an empty body sent in chunks is no body (the default grace period), as an empty Content-Length body is', async () => {
    const { id } = await made();
    const path = `/api/webhooks/${id}/rotate-secret`;
    for (const type of ['content-type: application/json\r\n', '']) {
      const head = `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\n${type}transfer-encoding: chunked\r\nconnection: close`;
      const answer = await rawRequest(server.url, head, ['0\r\n\r\n']);
      assert.equal(answer.status, 200, `${type || 'no content type'}: ${answer.body}`);
      assert.match(answer.body, /"secret":"whsec_/);
    }
    // A chunked body that is there is still read and checked.
    const head = `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close`;
    const body = '{"keepCurrentForSeconds":-1}';
    const refused = await rawRequest(server.url, head, [`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`]);
    assert.equal(refused.status, 422);
    assert.match(refused.body, /too_small/);
    const untyped = `POST ${path} HTTP/1.1\r\nhost: ${host()}\r\ntransfer-encoding: chunked\r\nconnection: close`;
    assert.equal((await rawRequest(server.url, untyped, ['2\r\n{}\r\n0\r\n\r\n'])).status, 415);
  });

  // Each URL, at creation and in a PATCH: the one error expected, and nothing made or changed.
  const refusedEverywhere = async (urls: readonly string[], code: string): Promise<void> => {
    const { id } = await made();
    const before = await server.database.countRows('webhooks');
    for (const url of urls) {
      for (const answer of [
        await postJson(`${server.url}/api/webhooks`, { url, status: 2 }),
        await fetch(`${server.url}/api/webhooks/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ url }) }),
      ]) {
        assert.equal(answer.status, 422, url);
        const errors = ((await answer.json()) as Json)['errors'] as Json[];
        assert.deepEqual(errors.map((error) => `${error['pointer']} ${error['code']}`), [`/url ${code}`], url);
      }
    }
    assert.equal(await server.database.countRows('webhooks'), before);
    assert.equal(((await (await fetch(`${server.url}/api/webhooks/${id}`)).json()) as Json)['url'], HOOK.url);
  };

  test('a host that ends in more than one dot is invalid_url, local or not, at creation and on PATCH; nothing made or changed', async () => {
    await refusedEverywhere(
      ['https://127.0.0.1../hook', 'https://example.com../x', 'https://example.com.%2E/x', 'https://localhost../', 'https://a.localhost.../', 'https://printer.local../', 'https://intranet../'],
      'invalid_url',
    );
  });

  test('one trailing dot is a fully qualified name: accepted for a public name, forbidden_target for a local one', async () => {
    const accepted = await postJson(`${server.url}/api/webhooks`, { url: 'https://example.com./x', status: 2 });
    assert.equal(accepted.status, 201);
    assert.equal(((await accepted.json()) as Json)['url'], 'https://example.com./x');
    await refusedEverywhere(['https://localhost./', 'https://a.localhost./', 'https://printer.local./', 'https://intranet./', 'https://127.0.0.1./'], 'forbidden_target');
  });
});
