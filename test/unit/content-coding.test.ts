import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { isIdentityCoding } from '../../src/http/body.ts';
import { HttpError } from '../../src/http/errors.ts';
import { checkBodyHeaders } from '../../src/http/write-input.ts';

test('isIdentityCoding: absent, empty or identity only, in any letter case, is no coding', () => {
  for (const header of [undefined, '', ' ', ',', 'identity', 'IDENTITY', ' Identity ', 'identity, identity', 'identity,,']) {
    assert.equal(isIdentityCoding(header), true, JSON.stringify(header));
  }
});

test('isIdentityCoding: any other coding anywhere in the list is a coding', () => {
  for (const header of ['gzip', 'GZip', 'br', 'deflate', 'compress', 'zstd', 'x-gzip', 'gzip, identity', 'identity, br', 'identity;q=1', 'identityx', '"identity"']) {
    assert.equal(isIdentityCoding(header), false, header);
  }
});

// What checkBodyHeaders reads of a request: its headers.
const requestWith = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

function refusal(headers: Record<string, string>): HttpError | null {
  try {
    checkBodyHeaders(requestWith(headers), ['application/json']);
    return null;
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error;
  }
}

test('checkBodyHeaders: the coding first, then the media type; each 415 says which, and that only identity is accepted', () => {
  assert.equal(refusal({ 'content-type': 'application/json' }), null);
  assert.equal(refusal({ 'content-type': 'application/json', 'content-encoding': 'identity' }), null);
  const coded = refusal({ 'content-type': 'text/plain', 'content-encoding': 'gzip' });
  assert.equal(coded?.code, 'unsupported_media_type');
  assert.match(coded?.detail ?? '', /Content-Encoding/);
  assert.deepEqual(coded?.headers, { 'accept-encoding': 'identity' });
  const typed = refusal({ 'content-type': 'text/plain' });
  assert.equal(typed?.code, 'unsupported_media_type');
  assert.match(typed?.detail ?? '', /application\/json/);
  assert.doesNotMatch(typed?.detail ?? '', /Content-Encoding/);
  assert.deepEqual(typed?.headers, { 'accept-encoding': 'identity' });
});
