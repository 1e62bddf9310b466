import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonContentType, parseJson } from '../../src/http/body.ts';
import { HttpError } from '../../src/http/errors.ts';
import { parseId } from '../../src/http/reply.ts';
import { requestIdFrom } from '../../src/http/request-id.ts';

test('parseId takes positive safe integers in canonical form only', () => {
  assert.equal(parseId('1'), 1);
  assert.equal(parseId('9007199254740991'), 9007199254740991);
  for (const raw of [undefined, '', '0', '-1', '1.5', 'abc', '9007199254740992', '%31', '1e3', '01', '+1', ' 1', '1 ', '0x1', '9'.repeat(400)]) {
    assert.equal(parseId(raw), null, String(raw));
  }
});

test('isJsonContentType: application/json with at most a UTF-8 charset, in any case', () => {
  for (const header of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'application/json ; CHARSET=Utf-8', 'application/json;', 'application/json; ; charset=utf-8']) {
    assert.equal(isJsonContentType(header), true, header);
  }
  for (const header of [undefined, '', 'text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/jsonx', 'application/problem+json', 'text/json', 'application/json; boundary=x', 'application/json; charset=utf-8=x', 'application/json; charset', 'application/json; charset=utf8', 'application/json, text/plain']) {
    assert.equal(isJsonContentType(header), false, String(header));
  }
});

function invalidJsonDetail(bytes: Buffer): string {
  try {
    parseJson(bytes);
  } catch (error) {
    assert.ok(error instanceof HttpError && error.code === 'invalid_json');
    return error.detail;
  }
  assert.fail('expected invalid_json');
}

test('parseJson refuses empty bodies, bad UTF-8 and bad JSON with distinct details', () => {
  assert.equal(invalidJsonDetail(Buffer.alloc(0)), 'The request body is empty.');
  assert.equal(invalidJsonDetail(Buffer.from([0x7b, 0xff, 0x7d])), 'The request body is not valid UTF-8.');
  assert.equal(invalidJsonDetail(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])), 'The request body is not valid UTF-8.', 'encoded surrogate');
  assert.equal(invalidJsonDetail(Buffer.from([0x22, 0xc0, 0xaf, 0x22])), 'The request body is not valid UTF-8.', 'overlong');
  for (const text of ['{', '{"a":1,}', "{'a':1}", '   ', 'NaN', '{"a":1}x']) {
    assert.equal(invalidJsonDetail(Buffer.from(text)), 'The request body is not valid JSON.', text);
  }
});

test('parseJson drops one leading BOM, as RFC 8259 allows', () => {
  assert.deepEqual(parseJson(Buffer.from('\ufeff{"a":1}')), { a: 1 });
  assert.equal(invalidJsonDetail(Buffer.from('\ufeff\ufeff{}')), 'The request body is not valid JSON.');
});

test('requestIdFrom echoes 1..128 characters of [A-Za-z0-9._:-] and makes a UUID otherwise', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  for (const id of ['a', 'A.b_c:d-9', 'x'.repeat(128)]) assert.equal(requestIdFrom(id), id);
  for (const id of [undefined, '', 'x'.repeat(129), 'a b', 'é', 'a/b', ['a', 'b']]) assert.match(requestIdFrom(id), uuid, String(id));
});
