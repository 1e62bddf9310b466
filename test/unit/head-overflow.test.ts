import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overflowedInRequestLine } from '../../src/http/head-overflow.ts';

// What node:http attaches to HPE_HEADER_OVERFLOW: the packet, and where in it the limit ran out.
const overflowAt = (packet: string, marker: string): { rawPacket: Buffer; bytesParsed: number } => ({
  rawPacket: Buffer.from(packet, 'latin1'),
  bytesParsed: marker === '' ? packet.length : packet.indexOf(marker),
});

test('the target ending within the packet, at the space before the version, is the request line', () => {
  assert.equal(overflowedInRequestLine(overflowAt(`GET /${'a'.repeat(100)} HTTP/1.1\r\nHost: x\r\n\r\n`, ' HTTP/1.1')), true);
  // Also when the target began in an earlier packet.
  assert.equal(overflowedInRequestLine(overflowAt(`${'a'.repeat(100)} HTTP/1.1\r\nHost: x\r\n\r\n`, ' HTTP/1.1')), true);
});

test('a header value ending at CR, or a header name at its colon, is not', () => {
  assert.equal(overflowedInRequestLine(overflowAt(`GET / HTTP/1.1\r\nX-Big: ${'b'.repeat(100)}\r\n\r\n`, '\r\n\r\n')), false);
  assert.equal(overflowedInRequestLine(overflowAt(`GET / HTTP/1.1\r\nX-${'b'.repeat(100)}: 1\r\n\r\n`, ': 1')), false);
});

test('a span still open at the end of the packet is the request line when its line starts with a method', () => {
  assert.equal(overflowedInRequestLine(overflowAt(`GET /${'a'.repeat(100)}`, '')), true);
  assert.equal(overflowedInRequestLine(overflowAt(`GET / HTTP/1.1\r\nHost: x\r\n\r\nM-SEARCH /${'a'.repeat(100)}`, '')), true);
  assert.equal(overflowedInRequestLine(overflowAt(`GET / HTTP/1.1\r\nX-Big: ${'b'.repeat(100)}`, '')), false);
});

test('an open span that began in an earlier packet cannot be told from a header value, and counts as one', () => {
  assert.equal(overflowedInRequestLine(overflowAt('a'.repeat(100), '')), false);
});

test('an error without a packet, or with a position outside it, is not taken for the request line', () => {
  assert.equal(overflowedInRequestLine({}), false);
  assert.equal(overflowedInRequestLine({ rawPacket: 'GET /a', bytesParsed: 3 }), false);
  assert.equal(overflowedInRequestLine({ rawPacket: Buffer.from('GET /a'), bytesParsed: 0 }), false);
  assert.equal(overflowedInRequestLine({ rawPacket: Buffer.from('GET /a'), bytesParsed: 99 }), false);
});
