import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/http/errors.ts';
import { answerServerWide, parseRequestTarget, servedMethods } from '../../src/http/request-target.ts';

const served = (target: string): [string, string, string, string] => {
  const parsed = parseRequestTarget(target);
  return [parsed.form, parsed.path, parsed.query, parsed.logged];
};

test('origin form: the path and the query as they are (no decoding)', () => {
  assert.deepEqual(served('/api/products?limit=2&x=%20y'), ['origin', '/api/products', 'limit=2&x=%20y', '/api/products?limit=2&x=%20y']);
  assert.deepEqual(served('/api/products/%31'), ['origin', '/api/products/%31', '', '/api/products/%31']);
  assert.deepEqual(served('//host/api'), ['origin', '//host/api', '', '//host/api'], 'a path that starts with two slashes is still a path');
});

test('absolute form of an http or https URI: its origin form, the authority ignored', () => {
  assert.deepEqual(served('http://h:8080/api/products/2?x=1'), ['origin', '/api/products/2', 'x=1', '/api/products/2?x=1']);
  assert.deepEqual(served('HTTPS://[::1]/api/ping'), ['origin', '/api/ping', '', '/api/ping']);
  assert.deepEqual(served('http://h:/api/ping'), ['origin', '/api/ping', '', '/api/ping']);
  assert.deepEqual(served('http://h'), ['origin', '/', '', '/']);
  assert.deepEqual(served('http://h?limit=1'), ['origin', '/', 'limit=1', '/?limit=1']);
});

test('asterisk form', () => {
  assert.deepEqual(served('*'), ['asterisk', '*', '', '*']);
});

test('refused: another scheme, user information, no host; the log never holds the user information', () => {
  const cases: [string, RegExp, string][] = [
    ['ftp://h/api/ping', /http or https/, 'ftp://h/api/ping'],
    ['ws://h/api/ping', /http or https/, 'ws://h/api/ping'],
    ['http://user:secret@h/api/ping', /user information/, 'http://h/api/ping'],
    ['http://a@b@h/x', /user information/, 'http://h/x'],
    ['http:///api/ping', /no host/, 'http:///api/ping'],
    ['http://:80/api/ping', /no host/, 'http://:80/api/ping'],
    ['h:80', /http or https/, ''],
  ];
  for (const [target, detail, logged] of cases) {
    const parsed = parseRequestTarget(target);
    assert.deepEqual([parsed.form, parsed.path, parsed.logged], ['refused', '', logged], target);
    assert.ok(parsed.refusal instanceof HttpError && parsed.refusal.code === 'bad_request', target);
    assert.match(parsed.refusal.detail, detail, target);
  }
});

test('OPTIONS * is 204 with the methods served; * with another method, and a refused target, are 400', () => {
  const allow = servedMethods([{ method: 'GET' }, { method: 'POST' }, { method: 'GET' }, { method: 'DELETE' }]);
  assert.deepEqual(allow, ['DELETE', 'GET', 'HEAD', 'POST']);
  assert.deepEqual(answerServerWide(parseRequestTarget('*'), 'OPTIONS', allow), { status: 204, headers: { allow: 'DELETE, GET, HEAD, POST' } });
  for (const method of ['GET', 'HEAD', 'POST']) {
    assert.throws(() => answerServerWide(parseRequestTarget('*'), method, allow), (error) => error instanceof HttpError && error.code === 'bad_request', method);
  }
  const refused = parseRequestTarget('ftp://h/');
  assert.throws(() => answerServerWide(refused, 'OPTIONS', allow), (error) => error === refused.refusal);
});
