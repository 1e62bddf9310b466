import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { entityTag, parsePreconditions, type PreconditionVerdict } from '../../src/http/conditional.ts';
import { HttpError } from '../../src/http/errors.ts';

const invalidHeader = (name: string) => (error: unknown): boolean =>
  error instanceof HttpError && error.code === 'invalid_header' && JSON.stringify(error.errors).includes(name);

// The verdicts for a resource at version 3: for a read (GET, HEAD), and whether a change may go ahead.
function verdicts(headers: IncomingHttpHeaders, version = 3): { read: PreconditionVerdict; change: boolean } {
  const preconditions = parsePreconditions(headers);
  return { read: preconditions.forRead(version), change: preconditions.forChange(version) };
}

test('entity tags are strong and quoted', () => {
  assert.equal(entityTag(1), '"1"');
  assert.equal(entityTag(42), '"42"');
});

test('no precondition: every method proceeds', () => {
  assert.deepEqual(verdicts({}), { read: 'proceed', change: true });
});

test('If-Match alone: * or a listed strong tag proceeds; anything else fails on every method', () => {
  for (const header of ['*', ' * ', '"3"', '"1", "3"', '"1", W/"4" ,"x,y", ,"3"', 'W/"1", "3"']) {
    assert.deepEqual(verdicts({ 'if-match': header }), { read: 'proceed', change: true }, header);
  }
  // Strong comparison: a weak tag never matches, even of the current version.
  for (const header of ['"1"', 'W/"3"', '"30"', '"x,3"', '"1", W/"3"']) {
    assert.deepEqual(verdicts({ 'if-match': header }), { read: 'failed', change: false }, header);
  }
});

test('If-None-Match alone: a match (weak comparison) or * is 304 on a read and a failure on a change', () => {
  for (const header of ['*', '"3"', 'W/"3"', '"1", W/"3"', '"1",,"3"']) {
    assert.deepEqual(verdicts({ 'if-none-match': header }), { read: 'not_modified', change: false }, header);
  }
  for (const header of ['"1"', 'W/"4"', '"30"', '"1", W/"2"']) {
    assert.deepEqual(verdicts({ 'if-none-match': header }), { read: 'proceed', change: true }, header);
  }
});

test('both: If-Match is evaluated first (RFC 9110 §13.2.2), and If-None-Match only once it passes', () => {
  const cases: [string, string, PreconditionVerdict, boolean][] = [
    // If-Match fails: 412 whatever If-None-Match says, on a read too (never 304).
    ['"1"', '"3"', 'failed', false],
    ['"1"', '"1"', 'failed', false],
    ['W/"3"', '*', 'failed', false],
    // If-Match passes: If-None-Match decides.
    ['"3"', '"3"', 'not_modified', false],
    ['*', '*', 'not_modified', false],
    ['"3"', '"1"', 'proceed', true],
    ['*', 'W/"2"', 'proceed', true],
  ];
  for (const [ifMatch, ifNoneMatch, read, change] of cases) {
    assert.deepEqual(verdicts({ 'if-match': ifMatch, 'if-none-match': ifNoneMatch }), { read, change }, `${ifMatch} / ${ifNoneMatch}`);
  }
});

test('the verdict is made against the version given, so a change evaluates it on the version it read for update', () => {
  const { forChange, forRead } = parsePreconditions({ 'if-match': '"3"', 'if-none-match': '"4"' });
  assert.deepEqual([2, 3, 4].map(forChange), [false, true, false]);
  assert.deepEqual([2, 3, 4].map(forRead), ['failed', 'proceed', 'failed']);
});

test('dates are not preconditions here: If-Unmodified-Since and If-Modified-Since are ignored', () => {
  const headers = { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT', 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' };
  assert.deepEqual(verdicts(headers), { read: 'proceed', change: true });
});

test('repeated header lines joined, or an array from an embedding host, are one list', () => {
  assert.deepEqual(verdicts({ 'if-match': '"1", "3"' }), { read: 'proceed', change: true });
  const asArray = { 'if-none-match': ['"1"', '"3"'] } as unknown as IncomingHttpHeaders;
  assert.deepEqual(verdicts(asArray), { read: 'not_modified', change: false });
});

test('anything that is not * or a list of entity tags is 400 invalid_header naming the field, parsed before any version is known', () => {
  for (const name of ['If-Match', 'If-None-Match']) {
    for (const header of ['', '3', 'W/3', '"3" "4"', '*, "3"', '"open', 'w/"3"', '"a b"', '"\u0001"', ',']) {
      assert.throws(() => parsePreconditions({ [name.toLowerCase()]: header }), invalidHeader(name), `${name}: ${JSON.stringify(header)}`);
    }
  }
  // Each field is judged on its own: a good If-Match does not excuse a bad If-None-Match.
  assert.throws(() => parsePreconditions({ 'if-match': '*', 'if-none-match': '3' }), invalidHeader('If-None-Match'));
});
