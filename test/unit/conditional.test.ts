import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entityTag, ifMatch, ifNoneMatchHits } from '../../src/http/conditional.ts';
import { HttpError } from '../../src/http/errors.ts';

const invalidHeader = (name: string) => (error: unknown): boolean =>
  error instanceof HttpError && error.code === 'invalid_header' && JSON.stringify(error.errors).includes(name);

test('entity tags are strong and quoted', () => {
  assert.equal(entityTag(1), '"1"');
  assert.equal(entityTag(42), '"42"');
});

test('If-Match: absent or * allows any version; a list allows the versions it names, by strong comparison', () => {
  assert.equal(ifMatch(undefined)(7), true);
  assert.equal(ifMatch('*')(7), true);
  assert.equal(ifMatch(' * ')(7), true);
  const listed = ifMatch('"3", W/"4" ,"x,y", ,"5"');
  assert.deepEqual([1, 3, 4, 5].map(listed), [false, true, false, true]);
  assert.equal(ifMatch('"3"')(30), false);
  // Repeated header lines arrive joined, or as an array from an embedding host.
  assert.equal(ifMatch(['"1"', '"2"'])(2), true);
});

test('If-Match: anything that is not * or a list of entity tags is 400 invalid_header', () => {
  for (const header of ['', '3', 'W/3', '"3" "4"', '*, "3"', '"open', 'w/"3"', '"a b"', '"\u0001"', ',']) {
    assert.throws(() => ifMatch(header), invalidHeader('If-Match'), JSON.stringify(header));
  }
});

test('If-None-Match: weak comparison, * matches any current version, absent never matches', () => {
  assert.equal(ifNoneMatchHits(undefined, 1), false);
  assert.equal(ifNoneMatchHits('"1"', 1), true);
  assert.equal(ifNoneMatchHits('W/"1"', 1), true);
  assert.equal(ifNoneMatchHits('"2", "1"', 1), true);
  assert.equal(ifNoneMatchHits('"2"', 1), false);
  assert.equal(ifNoneMatchHits('*', 9), true);
  assert.throws(() => ifNoneMatchHits('1', 1), invalidHeader('If-None-Match'));
});
