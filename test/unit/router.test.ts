import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Scope } from '../../src/callers/scopes.ts';
import { createRouter } from '../../src/http/router.ts';

function sampleRouter() {
  const router = createRouter<string>();
  router.add('GET', '/api/ping', 'open', 'ping');
  router.add('GET', '/api/products', 'open', 'list');
  router.add('POST', '/api/products', 'open', 'create');
  router.add('GET', '/api/products/{id}', 'open', 'get');
  router.add('POST', '/api/upload', 'open', 'upload');
  return router;
}

test('a static path finds its handler with no params', () => {
  assert.deepEqual(sampleRouter().match('GET', '/api/products'), { kind: 'found', handler: 'list', access: 'open', params: {}, pattern: '/api/products' });
  assert.deepEqual(sampleRouter().match('POST', '/api/products'), { kind: 'found', handler: 'create', access: 'open', params: {}, pattern: '/api/products' });
});

test('a {name} segment captures the raw segment text', () => {
  assert.deepEqual(sampleRouter().match('GET', '/api/products/17'), { kind: 'found', handler: 'get', access: 'open', params: { id: '17' }, pattern: '/api/products/{id}' });
  assert.deepEqual(sampleRouter().match('GET', '/api/products/abc'), { kind: 'found', handler: 'get', access: 'open', params: { id: 'abc' }, pattern: '/api/products/{id}' });
  // Not decoded: the handler decides what an id is.
  assert.deepEqual(sampleRouter().match('GET', '/api/products/%31'), { kind: 'found', handler: 'get', access: 'open', params: { id: '%31' }, pattern: '/api/products/{id}' });
});

test('an unknown path is not_found', () => {
  const router = sampleRouter();
  for (const path of ['/', '', '/api', '/api/nothing', '/API/products', '/api/products/1/extra', '/api/ping/x', '/apiproducts']) {
    assert.deepEqual(router.match('GET', path), { kind: 'not_found' }, path);
  }
});

test('a trailing slash or an empty parameter segment does not match', () => {
  const router = sampleRouter();
  assert.equal(router.match('GET', '/api/products/').kind, 'not_found');
  assert.equal(router.match('GET', '/api/ping/').kind, 'not_found');
  assert.equal(router.match('GET', '/api/products//').kind, 'not_found');
  assert.equal(router.match('GET', '//api/products').kind, 'not_found');
});

test('the segment count must be equal', () => {
  const router = sampleRouter();
  assert.equal(router.match('GET', '/api/products/1/2').kind, 'not_found');
  assert.equal(router.match('GET', '/api').kind, 'not_found');
});

test('HEAD is answered by the GET handler of the same path', () => {
  const router = sampleRouter();
  assert.deepEqual(router.match('HEAD', '/api/products/9'), { kind: 'found', handler: 'get', access: 'open', params: { id: '9' }, pattern: '/api/products/{id}' });
  assert.deepEqual(router.match('HEAD', '/api/ping'), { kind: 'found', handler: 'ping', access: 'open', params: {}, pattern: '/api/ping' });
});

test('HEAD is not answered where no GET exists', () => {
  assert.deepEqual(sampleRouter().match('HEAD', '/api/upload'), { kind: 'method_not_allowed', allow: ['POST'], pattern: '/api/upload' });
});

test('a known path with another method is method_not_allowed with every allowed method, HEAD included', () => {
  const router = sampleRouter();
  const list = router.match('DELETE', '/api/products');
  assert.equal(list.kind, 'method_not_allowed');
  assert.deepEqual(list.kind === 'method_not_allowed' ? [...list.allow].sort() : [], ['GET', 'HEAD', 'POST']);
  assert.deepEqual(router.match('POST', '/api/products/1'), { kind: 'method_not_allowed', allow: ['GET', 'HEAD'], pattern: '/api/products/{id}' });
  assert.deepEqual(router.match('PUT', '/api/ping'), { kind: 'method_not_allowed', allow: ['GET', 'HEAD'], pattern: '/api/ping' });
  assert.deepEqual(router.match('GET', '/api/upload'), { kind: 'method_not_allowed', allow: ['POST'], pattern: '/api/upload' });
});

test('methods are case-sensitive, as HTTP methods are', () => {
  assert.equal(sampleRouter().match('get', '/api/ping').kind, 'method_not_allowed');
});

test('routes() lists what was added, with its access, in order, without HEAD', () => {
  const router = sampleRouter();
  router.add('DELETE', '/api/products/{id}', Scope.write, 'delete');
  assert.deepEqual(router.routes(), [
    { method: 'GET', pattern: '/api/ping', access: 'open' },
    { method: 'GET', pattern: '/api/products', access: 'open' },
    { method: 'POST', pattern: '/api/products', access: 'open' },
    { method: 'GET', pattern: '/api/products/{id}', access: 'open' },
    { method: 'POST', pattern: '/api/upload', access: 'open' },
    { method: 'DELETE', pattern: '/api/products/{id}', access: Scope.write },
  ]);
});

test('a static route added before a parameter route of the same shape wins', () => {
  const router = createRouter<string>();
  router.add('GET', '/api/products/special', 'open', 'special');
  router.add('GET', '/api/products/{id}', 'open', 'get');
  assert.deepEqual(router.match('GET', '/api/products/special'), { kind: 'found', handler: 'special', access: 'open', params: {}, pattern: '/api/products/special' });
  assert.deepEqual(router.match('GET', '/api/products/3'), { kind: 'found', handler: 'get', access: 'open', params: { id: '3' }, pattern: '/api/products/{id}' });
});

test('a static route does not hide another method of a parameter route matching the same path', () => {
  const router = createRouter<string>();
  router.add('POST', '/api/products/import', 'open', 'import');
  router.add('GET', '/api/products/{id}', 'open', 'get');
  assert.deepEqual(router.match('GET', '/api/products/import'), { kind: 'found', handler: 'get', access: 'open', params: { id: 'import' }, pattern: '/api/products/{id}' });
  assert.deepEqual(router.match('DELETE', '/api/products/import'), { kind: 'method_not_allowed', allow: ['POST', 'GET', 'HEAD'], pattern: '/api/products/import' });
});

test('the matched pattern is the registered one, never the raw path, so it can label metrics', () => {
  const router = sampleRouter();
  for (const id of ['1', '999999', 'x', '%31']) {
    const match = router.match('GET', `/api/products/${id}`);
    assert.equal(match.kind === 'found' ? match.pattern : '', '/api/products/{id}');
  }
  const refused = router.match('PATCH', '/api/products/42');
  assert.equal(refused.kind === 'method_not_allowed' ? refused.pattern : '', '/api/products/{id}');
});

test('a match carries the access its route was registered with, and HEAD that of GET', () => {
  const router = createRouter<string>();
  router.add('GET', '/api/things', Scope.read, 'list');
  router.add('POST', '/api/things', Scope.write, 'create');
  router.add('GET', '/api/ping', 'open', 'ping');
  const access = (method: string, path: string): unknown => {
    const match = router.match(method, path);
    return match.kind === 'found' ? match.access : match.kind;
  };
  assert.equal(access('GET', '/api/things'), Scope.read);
  assert.equal(access('HEAD', '/api/things'), Scope.read);
  assert.equal(access('POST', '/api/things'), Scope.write);
  assert.equal(access('GET', '/api/ping'), 'open');
});

test('methodsAt lists the methods a path serves, HEAD where GET is, and none for an unknown path', () => {
  const router = sampleRouter();
  assert.deepEqual(router.methodsAt('/api/products'), ['GET', 'POST', 'HEAD']);
  assert.deepEqual(router.methodsAt('/api/products/9'), ['GET', 'HEAD']);
  assert.deepEqual(router.methodsAt('/api/upload'), ['POST']);
  assert.deepEqual(router.methodsAt('/api/nowhere'), []);
  assert.deepEqual(router.methodsAt('/api/products/'), []);
});
