import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { ALL_RESOURCES, refusals, validBody, fieldsIn } from '../support/resources.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// How a create's body is read (docs/api.md, Request bodies), on every resource served, the test
// resource included: media type, UTF-8, JSON, one object, and the 422 problem document.
let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

for (const resource of ALL_RESOURCES) {
  const { path } = resource;
  const valid = JSON.stringify(validBody(resource));
  // A field a create must send (it has no default), and another field, when there is one.
  const first = Object.keys(fieldsIn(resource)).find((field) => fieldsIn(resource)[field]?.default === undefined) as string;
  const second = Object.keys(fieldsIn(resource)).find((field) => field !== first);
  const post = (body: string | Uint8Array, contentType?: string): Promise<Response> =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: contentType === undefined ? {} : { 'content-type': contentType }, body });

  test(`${path}: malformed JSON is 400 invalid_json`, async () => {
    for (const body of ['{', `{"${first}":"x",}`, `{'${first}':'x'}`, 'undefined', `${valid} trailing`, '   ']) {
      const problem = await assertProblem(await post(body, 'application/json'), 400, 'invalid_json', path);
      assert.equal(problem['title'], 'Bad Request');
      assert.equal(problem['detail'], 'The request body is not valid JSON.', body);
    }
  });

  test(`${path}: an empty body is 400 invalid_json`, async () => {
    const problem = await assertProblem(await post('', 'application/json'), 400, 'invalid_json', path);
    assert.equal(problem['detail'], 'The request body is empty.');
  });

  test(`${path}: bytes that are not UTF-8 are 400 invalid_json, even inside a string`, async () => {
    const latin1 = Buffer.concat([Buffer.from(`{"${first}":"caf`), Buffer.from([0xe9]), Buffer.from(`",${valid.slice(1)}`)]);
    const problem = await assertProblem(await post(latin1, 'application/json'), 400, 'invalid_json', path);
    assert.equal(problem['detail'], 'The request body is not valid UTF-8.');
  });

  test(`${path}: a leading UTF-8 BOM is ignored (RFC 8259 §8.1)`, async () => {
    const response = await post(Buffer.from(`\ufeff${valid}`), 'application/json');
    assert.equal(response.status, 201);
  });

  test(`${path}: a missing or other content type is 415, before the body is looked at`, async () => {
    for (const type of [undefined, 'text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      // Bytes, not a string: fetch would add text/plain to a string body with no content type.
      const problem = await assertProblem(await post(Buffer.from(valid), type), 415, 'unsupported_media_type', path);
      assert.equal(problem['title'], 'Unsupported Media Type', String(type));
    }
    // Even an invalid body gets 415 first: the media type decides how it would be read.
    await assertProblem(await post('{', 'text/plain'), 415, 'unsupported_media_type', path);
  });

  test(`${path}: application/json with a UTF-8 charset in any letter case is accepted`, async () => {
    for (const type of ['application/json; charset=UTF-8', 'application/json;charset=utf-8', 'APPLICATION/JSON']) {
      assert.equal((await post(valid, type)).status, 201, type);
    }
  });

  test(`${path}: 422 validation_failed is the documented problem shape with every error at once`, async () => {
    const body: Record<string, unknown> = { ...validBody(resource), colour: 'red' };
    delete body[first];
    const refused = refusals(resource).find((refusal) => refusal.field === second);
    if (refused !== undefined) body[refused.field] = refused.value;
    const problem = await assertProblem(await postJson(`${server.url}${path}`, body), 422, 'validation_failed', path);
    assert.deepEqual(Object.keys(problem), ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId', 'errors']);
    assert.equal(problem['title'], 'Unprocessable Content');
    const errors = problem['errors'] as { pointer: string; code: string; detail: string }[];
    assert.equal(problem['detail'], `The request body has ${errors.length} invalid fields.`);
    const [missing, ...rest] = errors;
    assert.deepEqual(missing, { pointer: `/${first}`, code: 'required', detail: `${first} is required` });
    assert.deepEqual(rest.at(-1), { pointer: '/colour', code: 'unknown_field', detail: 'colour is not a known field' });
    if (refused !== undefined) {
      assert.equal(rest.length, 2);
      assert.deepEqual([rest[0]?.pointer, rest[0]?.code], [refused.pointer, refused.code]);
      assert.match(String(rest[0]?.detail), new RegExp(`^${refused.pointer.slice(1)} `), 'the detail names the field');
    }
  });

  test(`${path}: one invalid field says so in the singular`, async () => {
    const body: Record<string, unknown> = validBody(resource);
    delete body[first];
    const problem = await assertProblem(await postJson(`${server.url}${path}`, body), 422, 'validation_failed', path);
    assert.equal(problem['detail'], 'The request body has 1 invalid field.');
  });

  test(`${path}: valid JSON that is not an object is 422 with one type error at pointer ""`, async () => {
    for (const body of ['[]', `[${valid}]`, '42', '"text"', 'null', 'true']) {
      const problem = await assertProblem(await post(body, 'application/json'), 422, 'validation_failed', path);
      assert.deepEqual(problem['errors'], [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }], body);
    }
  });

  test(`${path}: __proto__ and constructor sent on the wire are unknown fields; duplicates take the last value`, async () => {
    const problem = await assertProblem(await post(`${valid.slice(0, -1)},"__proto__":{"isAdmin":true},"constructor":{"prototype":{}}}`, 'application/json'), 422, 'validation_failed', path);
    assert.deepEqual((problem['errors'] as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`), ['/__proto__ unknown_field', '/constructor unknown_field']);
    const last = validBody(resource, 2)[first];
    const response = await post(`{"${first}":${JSON.stringify(validBody(resource, 1)[first])},${valid.slice(1, -1)},"${first}":${JSON.stringify(last)}}`, 'application/json');
    assert.equal(response.status, 201);
    assert.deepEqual(((await response.json()) as Record<string, unknown>)[first], last);
  });
}
