import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem, NON_IDS } from '../support/assertions.ts';
import { changeOf, createAt, type Json, oneFieldChange } from '../support/resource-requests.ts';
import { ALL_RESOURCES, refusals, representationMembers, fieldsIn } from '../support/resources.ts';
import { patchJson, startTestServer, type TestServer } from '../support/server.ts';

// PATCH as a JSON Merge Patch (docs/api.md, Requests that change) on every resource served, the test
// resource included: the same rules as a create, every error at once, nothing changed by a refusal.
// A resource's own rules (an archived product) are tested in its own file.

let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

const read = async (path: string): Promise<Json> => (await (await fetch(`${server.url}${path}`)).json()) as Json;
const patch = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> => patchJson(`${server.url}${path}`, body, headers);
const codesOf = (problem: Json): string[] => (problem['errors'] as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`);

// Texts padded with white space, which the rules trim away.
const padded = (body: Json): Json => Object.fromEntries(Object.entries(body).map(([field, value]) => [field, typeof value === 'string' ? ` ${value}\n` : value]));

// The nth refused value of each field (its last, when it has fewer), with its error: a patch refusing every field.
function refusedEach(resource: Resource, nth: number): { body: Json; codes: string[] } {
  const body: Json = {};
  const codes: string[] = [];
  for (const field of Object.keys(fieldsIn(resource))) {
    const all = refusals(resource).filter((refusal) => refusal.field === field);
    const refusal = all[Math.min(nth, all.length - 1)];
    assert.ok(refusal !== undefined, `${resource.plural}.${field} refuses a value`);
    body[field] = refusal.value;
    codes.push(`${refusal.pointer} ${refusal.code}`);
  }
  return { body, codes };
}

for (const resource of ALL_RESOURCES) {
  const fields = Object.keys(fieldsIn(resource));

  test(`${resource.plural}: PATCH replaces the members sent, keeps the others, moves updatedAt and the ETag, and answers what a GET reads`, async () => {
    const made = await createAt(server.url, resource);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Every field but the last, when there is more than one: the last must be kept.
    const sent = Object.fromEntries(Object.entries(changeOf(resource, made.body)).slice(0, Math.max(1, fields.length - 1)));
    const response = await patch(made.path, padded(sent));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(response.headers.get('etag'), '"2"');
    const changed = (await response.json()) as Json;
    assert.deepEqual(Object.keys(changed), representationMembers(resource));
    assert.deepEqual({ ...changed, updatedAt: '' }, { ...made.body, ...sent, updatedAt: '' });
    assert.equal(changed['createdAt'], made.body['createdAt']);
    assert.ok(String(changed['updatedAt']) > String(made.body['updatedAt']), `${String(changed['updatedAt'])} moves past ${String(made.body['updatedAt'])}`);
    assert.deepEqual(await read(made.path), changed);
  });

  test(`${resource.plural}: application/json is accepted for PATCH with the same meaning, charset=utf-8 in any case too`, async () => {
    const made = await createAt(server.url, resource);
    const first = oneFieldChange(resource, made.body);
    const json = await patch(made.path, first, { 'content-type': 'application/json' });
    assert.equal(json.status, 200);
    const changed = (await json.json()) as Json;
    assert.deepEqual(changed, { ...made.body, ...first, updatedAt: changed['updatedAt'] });
    const withCharset = await patch(made.path, oneFieldChange(resource, changed, 2), { 'content-type': 'Application/Merge-Patch+JSON; Charset=UTF-8' });
    assert.equal(withCharset.status, 200);
    assert.equal(withCharset.headers.get('etag'), '"3"');
  });

  test(`${resource.plural}: any other media type, or none, is 415 and changes nothing`, async () => {
    const made = await createAt(server.url, resource);
    const change = changeOf(resource, made.body);
    for (const type of ['text/plain', 'application/json-patch+json', 'application/merge-patch+json; charset=latin1', 'application/x-www-form-urlencoded']) {
      await assertProblem(await patch(made.path, change, { 'content-type': type }), 415, 'unsupported_media_type', made.path);
    }
    const none = await fetch(`${server.url}${made.path}`, { method: 'PATCH', body: JSON.stringify(change) });
    assert.equal(none.status, 415);
    await none.arrayBuffer();
    assert.deepEqual(await read(made.path), made.body);
  });

  test(`${resource.plural}: a patch that changes no value (and {}) answers 200 with the same representation, updatedAt and ETag`, async () => {
    const made = await createAt(server.url, resource);
    const own = Object.fromEntries(fields.map((field) => [field, made.body[field]]));
    const [first] = fields;
    for (const body of [{}, { [first as string]: made.body[first as string] }, own, padded(own)]) {
      const response = await patch(made.path, body);
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.equal(response.headers.get('etag'), '"1"');
      assert.deepEqual(await response.json(), made.body);
    }
    assert.deepEqual(await read(made.path), made.body);
  });

  test(`${resource.plural}: every field follows its create rule, every error is reported at once, and nothing changes`, async () => {
    const made = await createAt(server.url, resource);
    const rounds = Math.max(...fields.map((field) => refusals(resource).filter((refusal) => refusal.field === field).length));
    for (let nth = 0; nth < rounds; nth++) {
      const { body, codes } = refusedEach(resource, nth);
      const unknown = nth % 2 === 0 ? 'snake_case_member' : '__proto__x';
      const response = await patch(made.path, { ...body, [unknown]: 5 });
      const problem = await assertProblem(response, 422, 'validation_failed', made.path);
      assert.deepEqual(codesOf(problem), [...codes, `/${unknown} unknown_field`]);
      assert.equal(problem['detail'], `The request body has ${codes.length + 1} invalid fields.`);
    }
    assert.deepEqual(await read(made.path), made.body);
  });

  test(`${resource.plural}: null is a type error for every field: no field can be removed`, async () => {
    const made = await createAt(server.url, resource);
    const response = await patch(made.path, Object.fromEntries(fields.map((field) => [field, null])));
    const problem = await assertProblem(response, 422, 'validation_failed', made.path);
    assert.deepEqual(codesOf(problem), fields.map((field) => `/${field} type`));
    assert.deepEqual(await read(made.path), made.body);
  });

  test(`${resource.plural}: a body that is not one JSON object is 422 type at the root; not JSON is 400 invalid_json`, async () => {
    const made = await createAt(server.url, resource);
    for (const body of ['[]', `[${JSON.stringify(changeOf(resource, made.body))}]`, '1', '"x"', 'null', 'true']) {
      const problem = await assertProblem(await patch(made.path, body), 422, 'validation_failed', made.path);
      assert.deepEqual(problem['errors'], [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }]);
    }
    for (const body of ['', '{', `{"${fields[0]}":}`, `${JSON.stringify(changeOf(resource, made.body))} extra`]) {
      await assertProblem(await patch(made.path, body), 400, 'invalid_json', made.path);
    }
    assert.deepEqual(await read(made.path), made.body);
  });

  test(`${resource.plural}: PATCH of an unknown or malformed id is 404, whatever the body`, async () => {
    const made = await createAt(server.url, resource);
    const change = changeOf(resource, made.body);
    const unknown = `${resource.path}/99999999`;
    await assertProblem(await patch(unknown, change), 404, 'not_found', unknown);
    await assertProblem(await patch(unknown, change, { 'if-match': '*' }), 404, 'not_found', unknown);
    for (const id of NON_IDS) await assertProblem(await patch(`${resource.path}/${id}`, change), 404, 'not_found', `${resource.path}/${id}`);
  });

  test(`${resource.plural}: a body over the limit is 413 before it is read, and changes nothing`, async () => {
    const made = await createAt(server.url, resource);
    const big = JSON.stringify({ [fields[0] as string]: 'x'.repeat(20_000) });
    await assertProblem(await patch(made.path, big), 413, 'payload_too_large', made.path);
    assert.deepEqual(await read(made.path), made.body);
  });
}
