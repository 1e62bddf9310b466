import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { test } from 'node:test';
import { HttpError } from '../../src/http/errors.ts';
import { nextLink, parsePageRequest } from '../../src/http/paging.ts';
import { decodeCursor, encodeCursor, pageOf } from '../../src/shared/paging.ts';

// A list's name is any text (a resource's plural, with its filters: `things;status=2`): the codec
// knows no resource, so these tests name lists of their own.
test('a cursor decodes back to its id for the list that issued it', () => {
  for (const id of [1, 2, 49, 1_000_000, Number.MAX_SAFE_INTEGER]) {
    const cursor = encodeCursor('things', id);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/, 'URL-safe without escaping');
    assert.equal(decodeCursor('things', cursor), id);
  }
});

test("another list's cursor is refused, a filtered list's too", () => {
  assert.equal(decodeCursor('things;status=2', encodeCursor('things', 5)), null);
  assert.equal(decodeCursor('things', encodeCursor('things;status=2', 5)), null);
  assert.equal(decodeCursor('others', encodeCursor('things', 5)), null);
  assert.equal(decodeCursor('things', encodeCursor('others', 5)), null);
});

/** A cursor as this service would write it for any text: valid checksum, any content. */
function forge(text: string): string {
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(text), 0);
  return Buffer.concat([Buffer.from(text, 'latin1'), checksum]).toString('base64url');
}

test('the codec itself: forge() writes what encodeCursor writes', () => {
  assert.equal(forge('things:42'), encodeCursor('things', 42));
});

test('garbage is refused', () => {
  for (const cursor of ['', 'x', '!!!!', 'abc def', 'A'.repeat(81), 'AAAAAAAAAAAA', Buffer.from('things:42').toString('base64url')]) {
    assert.equal(decodeCursor('things', cursor), null, cursor);
  }
});

test('a cursor with any one character changed, cut short, or lengthened is refused', () => {
  const valid = encodeCursor('things', 1234);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let i = 0; i < valid.length; i++) {
    for (const replacement of alphabet) {
      if (replacement === valid[i]) continue;
      const tampered = valid.slice(0, i) + replacement + valid.slice(i + 1);
      assert.equal(decodeCursor('things', tampered), null, tampered);
    }
  }
  for (const cursor of [valid.slice(0, -1), valid.slice(1), `${valid}A`, `A${valid}`, `${valid}=`, `${valid}.`]) {
    assert.equal(decodeCursor('things', cursor), null, cursor);
  }
});

test('well-formed text in a cursor must still be an id in canonical form', () => {
  for (const text of ['things:', 'things:0', 'things:-1', 'things:01', 'things:1.5', 'things:1e3', 'things: 1', 'things:1 ', 'Things:1', 'things:abc', 'things:42:1', ':1', 'things']) {
    assert.equal(decodeCursor('things', forge(text)), null, text);
  }
});

test('huge ids in a cursor are refused: beyond the safe range or beyond 16 digits', () => {
  assert.equal(decodeCursor('things', forge('things:9007199254740991')), Number.MAX_SAFE_INTEGER);
  assert.equal(decodeCursor('things', forge('things:9007199254740992')), null);
  assert.equal(decodeCursor('things', forge('things:99999999999999999')), null);
  assert.equal(decodeCursor('things', forge(`things:${'9'.repeat(40)}`)), null);
});

function invalidQueryOf(query: string): HttpError {
  try {
    parsePageRequest('things', new URLSearchParams(query));
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error;
  }
  assert.fail(`expected ${query} to be refused`);
}

test('limit defaults to 50 and accepts 1..200', () => {
  assert.deepEqual(parsePageRequest('things', new URLSearchParams('')), { limit: 50, beforeId: null });
  assert.deepEqual(parsePageRequest('things', new URLSearchParams('limit=1')), { limit: 1, beforeId: null });
  assert.deepEqual(parsePageRequest('things', new URLSearchParams('limit=200')), { limit: 200, beforeId: null });
});

test('a bad limit is invalid_query naming the parameter', () => {
  const cases: [string, string][] = [
    ['limit=0', 'too_small'], ['limit=201', 'too_large'], ['limit=abc', 'not_integer'], ['limit=1.5', 'not_integer'],
    ['limit=', 'not_integer'], ['limit=-1', 'not_integer'], ['limit=1e2', 'not_integer'], [`limit=${'9'.repeat(30)}`, 'not_integer'],
  ];
  for (const [query, code] of cases) {
    const error = invalidQueryOf(query);
    assert.equal(error.code, 'invalid_query', query);
    assert.deepEqual(error.errors, [{ parameter: 'limit', code, detail: 'limit must be an integer from 1 to 200' }], query);
  }
});

test('a bad cursor is invalid_query naming the parameter; a good one sets beforeId', () => {
  assert.deepEqual(invalidQueryOf('cursor=nope').errors?.map((e) => ('parameter' in e ? e.parameter : '')), ['cursor']);
  assert.equal(invalidQueryOf(`cursor=${encodeCursor('others', 3)}`).code, 'invalid_query');
  assert.deepEqual(parsePageRequest('things', new URLSearchParams(`cursor=${encodeCursor('things', 3)}&limit=2`)), { limit: 2, beforeId: 3 });
});

test('unknown parameters are ignored', () => {
  assert.deepEqual(parsePageRequest('things', new URLSearchParams('sort=name&page=9&limitx=0')), { limit: 50, beforeId: null });
});

test('pageOf asks for one row more and reports where to continue only when more exist', async () => {
  const rows = [{ id: 9 }, { id: 7 }, { id: 4 }];
  const asked: number[] = [];
  const fetch = async (n: number) => (asked.push(n), rows.slice(0, n));
  assert.deepEqual(await pageOf({ limit: 2, beforeId: null }, fetch), { items: [{ id: 9 }, { id: 7 }], nextBeforeId: 7 });
  assert.deepEqual(await pageOf({ limit: 3, beforeId: null }, fetch), { items: rows, nextBeforeId: null });
  assert.deepEqual(asked, [3, 4]);
});

test('nextLink is RFC 8288 with the limit and a cursor, and absent on the last page', () => {
  const link = nextLink('/api/things', 'things', { limit: 50, beforeId: null }, { items: [], nextBeforeId: 12 });
  assert.equal(link, `</api/things?limit=50&cursor=${encodeCursor('things', 12)}>; rel="next"`);
  assert.equal(nextLink('/api/things', 'things', { limit: 50, beforeId: null }, { items: [], nextBeforeId: null }), undefined);
});
