import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

const post = (body: string | Uint8Array, contentType?: string): Promise<Response> =>
  fetch(`${server.url}/api/products`, { method: 'POST', headers: contentType === undefined ? {} : { 'content-type': contentType }, body });

test('malformed JSON is 400 invalid_json', async () => {
  for (const body of ['{', '{"name":"x",}', "{'name':'x'}", 'undefined', '{"name":"x"} trailing', '   ']) {
    const problem = await assertProblem(await post(body, 'application/json'), 400, 'invalid_json', '/api/products');
    assert.equal(problem['title'], 'Bad Request');
    assert.equal(problem['detail'], 'The request body is not valid JSON.', body);
  }
});

test('an empty body is 400 invalid_json', async () => {
  const problem = await assertProblem(await post('', 'application/json'), 400, 'invalid_json', '/api/products');
  assert.equal(problem['detail'], 'The request body is empty.');
});

test('bytes that are not UTF-8 are 400 invalid_json, even inside a string', async () => {
  const latin1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('","priceInCents":1}')]);
  const problem = await assertProblem(await post(latin1, 'application/json'), 400, 'invalid_json', '/api/products');
  assert.equal(problem['detail'], 'The request body is not valid UTF-8.');
});

test('a leading UTF-8 BOM is ignored (RFC 8259 §8.1)', async () => {
  const response = await post(Buffer.from('\ufeff{"name":"BOM","priceInCents":1}'), 'application/json');
  assert.equal(response.status, 201);
});

test('a missing or other content type is 415, before the body is looked at', async () => {
  for (const type of [undefined, 'text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/jsonp']) {
    // Bytes, not a string: fetch would add text/plain to a string body with no content type.
    const response = await post(Buffer.from('{"name":"x","priceInCents":1}'), type);
    const problem = await assertProblem(response, 415, 'unsupported_media_type', '/api/products');
    assert.equal(problem['title'], 'Unsupported Media Type', String(type));
  }
  // Even an invalid body gets 415 first: the media type decides how it would be read.
  await assertProblem(await post('{', 'text/plain'), 415, 'unsupported_media_type', '/api/products');
});

test('application/json with a UTF-8 charset in any letter case is accepted', async () => {
  for (const type of ['application/json; charset=UTF-8', 'application/json;charset=utf-8', 'APPLICATION/JSON']) {
    assert.equal((await post('{"name":"x","priceInCents":1}', type)).status, 201, type);
  }
});

test('422 validation_failed is the documented problem shape with every error at once', async () => {
  const response = await postJson(`${server.url}/api/products`, { priceInCents: -1 , colour: 'red' });
  const problem = await assertProblem(response, 422, 'validation_failed', '/api/products');
  assert.deepEqual(Object.keys(problem), ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId', 'errors']);
  assert.equal(problem['title'], 'Unprocessable Content');
  assert.equal(problem['detail'], 'The request body has 3 invalid fields.');
  assert.deepEqual(problem['errors'], [
    { pointer: '/name', code: 'required', detail: 'name is required' },
    { pointer: '/priceInCents', code: 'too_small', detail: 'priceInCents must be at least 0' },
    { pointer: '/colour', code: 'unknown_field', detail: 'colour is not a known field' },
  ]);
});

test('one invalid field says so in the singular', async () => {
  const problem = await assertProblem(await postJson(`${server.url}/api/products`, { name: 'x' }), 422, 'validation_failed', '/api/products');
  assert.equal(problem['detail'], 'The request body has 1 invalid field.');
});

test('valid JSON that is not an object is 422 with one type error at pointer ""', async () => {
  for (const body of ['[]', '[{"name":"x","priceInCents":1}]', '42', '"text"', 'null', 'true']) {
    const problem = await assertProblem(await post(body, 'application/json'), 422, 'validation_failed', '/api/products');
    assert.deepEqual(problem['errors'], [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }], body);
  }
});

test('__proto__ and constructor sent on the wire are unknown fields; duplicates take the last value', async () => {
  const problem = await assertProblem(
    await post('{"name":"x","priceInCents":1,"__proto__":{"isAdmin":true},"constructor":{"prototype":{}}}', 'application/json'),
    422, 'validation_failed', '/api/products',
  );
  assert.deepEqual((problem['errors'] as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`), ['/__proto__ unknown_field', '/constructor unknown_field']);
  const response = await post('{"name":"first","priceInCents":1,"name":"last"}', 'application/json');
  assert.equal(response.status, 201);
  assert.equal(((await response.json()) as { name: string }).name, 'last');
});

test('workspaces read bodies the same way', async () => {
  const url = `${server.url}/api/workspaces`;
  await assertProblem(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }), 400, 'invalid_json', '/api/workspaces');
  await assertProblem(await fetch(url, { method: 'POST', body: '{"name":"x"}' }), 415, 'unsupported_media_type', '/api/workspaces');
  await assertProblem(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }), 422, 'validation_failed', '/api/workspaces');
});
