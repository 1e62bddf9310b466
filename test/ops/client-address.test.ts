import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClientAddressResolver, createTrustMatcher, isLoopbackHost, normalizeAddress } from '../../src/http/client-address.ts';
import { rateLimitKey } from '../../src/http/rate-limit.ts';

test('the trust matcher takes addresses and CIDR ranges of both families', () => {
  const trusted = createTrustMatcher(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1']);
  assert.equal(trusted('127.0.0.1'), true);
  assert.equal(trusted('127.0.0.2'), false);
  assert.equal(trusted('10.255.1.2'), true);
  assert.equal(trusted('11.0.0.1'), false);
  assert.equal(trusted('fd12:3456::1'), true);
  assert.equal(trusted('fe80::1'), false);
  assert.equal(trusted('::1'), true);
  assert.equal(trusted('not an address'), false);
});

test('IPv4-mapped IPv6 addresses match IPv4 entries, and mapped entries match IPv4 addresses', () => {
  assert.equal(createTrustMatcher(['127.0.0.1'])('::ffff:127.0.0.1'), true);
  assert.equal(createTrustMatcher(['10.0.0.0/8'])('::FFFF:10.1.2.3'), true);
  assert.equal(createTrustMatcher(['::ffff:192.168.0.0/112'])('192.168.4.5'), true);
  assert.equal(normalizeAddress('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(normalizeAddress('::1'), '::1');
});

test('with no trusted proxy, X-Forwarded-For is ignored', () => {
  const resolve = createClientAddressResolver([]);
  assert.equal(resolve('127.0.0.1', '203.0.113.9'), '127.0.0.1');
  assert.equal(resolve('::ffff:127.0.0.1', undefined), '127.0.0.1');
});

test('an untrusted peer is the client whatever it forwards', () => {
  const resolve = createClientAddressResolver(['10.0.0.1']);
  assert.equal(resolve('192.0.2.1', '203.0.113.9'), '192.0.2.1');
});

test('the client is the right-most untrusted hop', () => {
  const resolve = createClientAddressResolver(['127.0.0.1', '10.0.0.0/8']);
  assert.equal(resolve('127.0.0.1', '203.0.113.9'), '203.0.113.9');
  // A client-supplied left part cannot override the hop the proxies saw.
  assert.equal(resolve('127.0.0.1', '1.1.1.1, 203.0.113.9, 10.0.0.7'), '203.0.113.9');
  assert.equal(resolve('127.0.0.1', '198.51.100.4,10.1.1.1,10.2.2.2'), '198.51.100.4');
  assert.equal(resolve('127.0.0.1', ['198.51.100.4', '10.1.1.1']), '198.51.100.4');
  // Every hop trusted: the left-most is as far as anyone can see.
  assert.equal(resolve('127.0.0.1', '10.0.0.9, 10.0.0.8'), '10.0.0.9');
  assert.equal(resolve('127.0.0.1', undefined), '127.0.0.1');
});

test('ports and brackets are accepted, and IPv6 hops work', () => {
  const resolve = createClientAddressResolver(['127.0.0.1', 'fd00::/8']);
  assert.equal(resolve('127.0.0.1', '203.0.113.9:51234'), '203.0.113.9');
  assert.equal(resolve('127.0.0.1', '[2001:db8::7]:443'), '2001:db8::7');
  assert.equal(resolve('127.0.0.1', '2001:db8::7, fd00::1'), '2001:db8::7');
  assert.equal(resolve('127.0.0.1', '::ffff:203.0.113.9'), '203.0.113.9');
});

test('a malformed hop stops the walk at the trusted hop that reported it', () => {
  const resolve = createClientAddressResolver(['127.0.0.1', '10.0.0.0/8']);
  assert.equal(resolve('127.0.0.1', 'garbage'), '127.0.0.1');
  assert.equal(resolve('127.0.0.1', '203.0.113.9, unknown, 10.0.0.5'), '10.0.0.5');
  assert.equal(resolve('127.0.0.1', '203.0.113.9,,10.0.0.5'), '10.0.0.5');
  assert.equal(resolve('127.0.0.1', '999.1.1.1'), '127.0.0.1');
  // Left of an untrusted hop nothing is read, so garbage there does not matter.
  assert.equal(resolve('127.0.0.1', 'garbage, 203.0.113.9'), '203.0.113.9');
});

test('IPv6 clients are rate limited per /64, IPv4 per address', () => {
  assert.equal(rateLimitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(rateLimitKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(rateLimitKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(rateLimitKey('::1'), '0:0:0:0::/64');
  assert.equal(rateLimitKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(rateLimitKey('203.0.113.9'), '203.0.113.9');
});

test('loopback hosts are recognised for the start-up warning', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) assert.equal(isLoopbackHost(host), false, host);
});
