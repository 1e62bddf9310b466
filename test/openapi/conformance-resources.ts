import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Resource } from '../../src/resources/resource.ts';
import { allowedChange, refusedChanges } from '../support/change-samples.ts';
import { fieldsIn, filtersOf, refusals, validBody } from '../support/resources.ts';
import { type ConformanceRun, itemsOf } from './conformance-run.ts';

// Every resource the run's server serves (the service's and the throwaway one): every operation and
// every client error of theirs, met on the run's server, with bodies derived from each description in
// the run's API version.
type Json = Record<string, unknown>;

// A member no resource has, and a value past any body limit of the run (SVC_BODY_LIMIT_BYTES=1024).
const UNKNOWN = 'notAField';
const TOO_BIG = { [UNKNOWN]: 'x'.repeat(2_000) };

// The next page's target (a version with a sunset sends its deprecation link first, in the same field).
const nextLinkOf = (res: Response): string | undefined => /(?:^|, )<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];

/** Registers, in the current suite, the tests of the resources' reads, creates and their client errors. */
export function readAndCreateTests(run: ConformanceRun): void {
  for (const resource of run.resources) {
    const { path } = resource;
    const item = `${path}/{id}`;
    const body = validBody(resource, 0, run.version);
    test(`${path}: create, replay, list pages, read, HEAD and 404 conform`, async () => {
      await run.expectStatus('POST', path, run.post(path, body), 201);
      const key = { 'idempotency-key': `key-${path}` };
      const first = await run.expectStatus('POST', path, run.post(path, body, key), 201);
      const replayed = await run.post(path, body, key);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(await run.expectStatus('POST', path, replayed, 201), first);
      const page = await run.get(`${path}?limit=1`);
      const link = nextLinkOf(page);
      await run.expectStatus('GET', path, page, 200);
      assert.ok(link !== undefined, 'a Link to the next page');
      await run.expectStatus('GET', path, run.get(link), 200);
      await run.expectStatus('HEAD', path, run.get(path, { method: 'HEAD' }), 200);
      await run.expectStatus('GET', item, run.get(`${path}/${String(first['id'])}`), 200);
      await run.expectStatus('HEAD', item, run.get(`${path}/${String(first['id'])}`, { method: 'HEAD' }), 200);
      await run.expectStatus('GET', item, run.get(`${path}/999999`), 404);
      await run.expectStatus('GET', item, run.get(`${path}/abc`), 404);
    });

    test(`${path}: every client error of a list and a create conforms`, async () => {
      for (const query of ['limit=0', 'limit=abc', 'limit=201', 'cursor=bad!']) await run.expectStatus('GET', path, run.get(`${path}?${query}`), 400);
      await run.expectStatus('POST', path, run.post(path, '{"a":'), 400);
      await run.expectStatus('POST', path, run.post(path, ''), 400);
      await run.expectStatus('POST', path, run.post(path, body, { 'idempotency-key': 'k'.repeat(256) }), 400);
      await run.expectStatus('POST', path, run.post(path, TOO_BIG), 413);
      const auth = run.auth('POST');
      await run.expectStatus('POST', path, fetch(`${run.url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' }), 415);
      const gzipped = { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(body)) };
      await run.expectStatus('POST', path, fetch(`${run.url}${path}`, gzipped), 415);
      await run.expectStatus('POST', path, run.post(path, { [UNKNOWN]: 'typo' }), 422);
      await run.expectStatus('POST', path, run.post(path, [body]), 422);
      await run.post(path, body, { 'idempotency-key': `reuse-${path}` });
      await run.expectStatus('POST', path, run.post(path, validBody(resource, 1, run.version), { 'idempotency-key': `reuse-${path}` }), 422);
    });
  }
}

/** Registers the tests of the resources' changes and deletes. */
export function changeAndDeleteTests(run: ConformanceRun): void {
  for (const resource of run.resources) {
    const { path } = resource;
    const item = `${path}/{id}`;
    test(`${path}: 304, change under both media types, delete and what follows conform`, async () => {
      const { body, patch } = allowedChange(resource, 0, run.version);
      const created = await run.post(path, body);
      const url = created.headers.get('location') ?? '';
      const etag = created.headers.get('etag') ?? '';
      await run.expectStatus('POST', path, created, 201);
      await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': etag } }), 304);
      await run.expectStatus('HEAD', item, run.get(url, { method: 'HEAD', headers: { 'if-none-match': etag } }), 304);
      const changed = await run.patch(url, patch, { 'if-match': etag });
      const next = changed.headers.get('etag') ?? '';
      const answer = await run.expectStatus('PATCH', item, changed, 200);
      for (const [field, value] of Object.entries(patch)) assert.deepEqual(answer[field], value, field);
      assert.notEqual(next, etag);
      await run.expectStatus('PATCH', item, run.patch(url, {}, { 'content-type': 'application/json; charset=utf-8', 'if-match': '*' }), 200);
      await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': etag } }), 200);
      await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': next }), 204);
      await run.expectStatus('GET', item, run.get(url), 404);
      await run.expectStatus('PATCH', item, run.patch(url, patch), 404);
      await run.expectStatus('DELETE', item, run.remove(url), 404);
    });
  }
}

// Patches a valid patch under every malformed or failing precondition, and what else a change refuses before its rules.
async function preconditionErrors(run: ConformanceRun, resource: Resource, url: string, patch: Json): Promise<void> {
  const item = `${resource.path}/{id}`;
  for (const header of ['1', '"a" "b"', '*, "1"']) {
    await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': header } }), 400);
    await run.expectStatus('PATCH', item, run.patch(url, patch, { 'if-match': header }), 400);
    await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': header }), 400);
  }
  await run.expectStatus('PATCH', item, run.patch(url, patch, { 'if-match': '"0"' }), 412);
  await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': '"0", W/"1"' }), 412);
  const etag = (await run.get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
  await run.expectStatus('GET', item, run.get(url, { headers: { 'if-match': '"0"' } }), 412);
  await run.expectStatus('HEAD', item, run.get(url, { method: 'HEAD', headers: { 'if-match': `W/${etag}` } }), 412);
  await run.expectStatus('PATCH', item, run.patch(url, patch, { 'if-none-match': etag }), 412);
  await run.expectStatus('DELETE', item, run.remove(url, { 'if-none-match': '*' }), 412);
  for (const header of ['1', '*, "1"']) {
    await run.expectStatus('GET', item, run.get(url, { headers: { 'if-match': header } }), 400);
    await run.expectStatus('PATCH', item, run.patch(url, patch, { 'if-none-match': header }), 400);
    await run.expectStatus('DELETE', item, run.remove(url, { 'if-none-match': header }), 400);
  }
}

/** Registers the tests of every client error of the resources' reads, changes and deletes. */
export function itemClientErrorTests(run: ConformanceRun): void {
  for (const resource of run.resources) {
    const { path } = resource;
    const item = `${path}/{id}`;
    test(`${path}: every client error of a read, a change and a delete conforms`, async () => {
      const { body, patch } = allowedChange(resource, 0, run.version);
      const created = await run.post(path, body);
      const url = created.headers.get('location') ?? '';
      const representation = await created.json();
      await preconditionErrors(run, resource, url, patch);
      await run.expectStatus('PATCH', item, run.patch(url, '{"a":'), 400);
      await run.expectStatus('PATCH', item, run.patch(url, ''), 400);
      await run.expectStatus('PATCH', item, run.patch(`${path}/999999`, patch), 404);
      await run.expectStatus('PATCH', item, run.patch(`${path}/abc`, patch), 404);
      await run.expectStatus('DELETE', item, run.remove(`${path}/0`), 404);
      await run.expectStatus('PATCH', item, run.patch(url, TOO_BIG), 413);
      await run.expectStatus('PATCH', item, run.patch(url, patch, { 'content-type': 'application/json-patch+json' }), 415);
      await run.expectStatus('PATCH', item, run.patch(url, JSON.stringify(patch), { 'content-encoding': 'br' }), 415);
      const [first] = refusals(resource, run.version);
      assert.ok(first !== undefined, `${path}: a field that refuses a value`);
      const invalid = [{ [first.field]: null }, { [first.field]: first.value, [UNKNOWN]: 'typo' }, [], 'null'];
      for (const patchBody of invalid) await run.expectStatus('PATCH', item, run.patch(url, patchBody), 422);
      const after = await run.get(url);
      assert.equal(after.headers.get('etag'), created.headers.get('etag'), 'no refusal moved its version');
      assert.deepEqual(await run.expectStatus('GET', item, after, 200), representation, 'nothing refused changed it');
    });
  }
}

/** Registers the tests of the resources' own rules (a 409 of each, refused without a change), their list filters and every field error code. */
export function resourceRuleTests(run: ConformanceRun): void {
  for (const resource of run.resources) {
    const { path } = resource;
    const item = `${path}/{id}`;
    for (const { rule, change } of refusedChanges(resource, run.version)) {
      test(`${path}: 409 ${rule.refusal.code} conforms, and the refused change changed nothing`, async () => {
        const url = (await run.post(path, change.body)).headers.get('location') ?? '';
        const before = await (await run.get(url)).json();
        const refused = await run.expectStatus('PATCH', item, run.patch(url, change.patch), rule.refusal.status);
        assert.equal(refused['code'], rule.refusal.code);
        assert.deepEqual(await (await run.get(url)).json(), before);
      });
    }
    for (const filter of filtersOf(resource)) filterTest(run, resource, filter);
    test(`${path}: every field error code of its fields is produced, each at its pointer`, async () => {
      const required = Object.entries(fieldsIn(resource, run.version)).filter(([, field]) => field.required && field.default === undefined);
      const missing = await run.expectStatus('POST', path, run.post(path, {}), required.length > 0 ? 422 : 201);
      if (required.length > 0) assert.deepEqual(errorsOf(missing), required.map(([name]) => `/${name} required`));
      const unknown = await run.expectStatus('POST', path, run.post(path, { ...validBody(resource, 0, run.version), [UNKNOWN]: 1 }), 422);
      assert.deepEqual(errorsOf(unknown), [`/${UNKNOWN} unknown_field`]);
      for (const { field, value, code, pointer } of refusals(resource, run.version)) {
        const problem = await run.expectStatus('POST', path, run.post(path, { ...validBody(resource, 0, run.version), [field]: value }), 422);
        assert.deepEqual(errorsOf(problem), [`${pointer} ${code}`], `${field}=${JSON.stringify(value)}`);
      }
    });
  }
}

const errorsOf = (problem: Json): string[] => ((problem['errors'] as Json[] | undefined) ?? []).map((error) => `${String(error['pointer'])} ${String(error['code'])}`);

// A list filtered by one enum field pages with the filter carried in Link; a bad value, or a cursor of another filter, is 400.
function filterTest(run: ConformanceRun, resource: Resource, { field, value }: { field: string; value: number }): void {
  const { path } = resource;
  test(`${path}: a list filtered by ${field} pages with the filter carried in Link; a bad filter or a cursor of another filter is 400`, async () => {
    for (const n of [0, 1]) assert.equal((await run.post(path, { ...validBody(resource, n, run.version), [field]: value })).status, 201);
    const page = await run.get(`${path}?${field}=${value}&limit=1`);
    const link = nextLinkOf(page) ?? '';
    const first = itemsOf(await run.expectStatus('GET', path, page, 200));
    assert.match(link, new RegExp(`^${path}\\?limit=1&${field}=${value}&cursor=[\\w-]+$`));
    const second = itemsOf(await run.expectStatus('GET', path, run.get(link), 200));
    assert.deepEqual([...first, ...second].map((found) => found[field]), [value, value]);
    const spec = fieldsIn(resource, run.version)[field];
    const choices = spec?.kind === 'scalar' ? (spec.choices ?? []) : [];
    const other = choices.find((choice) => choice !== value);
    assert.ok(other !== undefined, `${field} has another value`);
    for (const query of [`${field}=${Math.max(...choices) + 1}`, `${field}=x`, `${field}=`]) await run.expectStatus('GET', path, run.get(`${path}?${query}`), 400);
    const problem = await run.expectStatus('GET', path, run.get(link.replace(`${field}=${value}`, `${field}=${other}`)), 400);
    assert.deepEqual((problem['errors'] as Json[]).map((e) => e['code']), ['invalid_cursor']);
    await run.expectStatus('GET', path, run.get(link.replace(`&${field}=${value}`, '')), 400);
  });
}
