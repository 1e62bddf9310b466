// A request line starts with a method token (RFC 9110 §5.6.2) and one space; a header line never
// does (its name ends at a colon).
const REQUEST_LINE_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /;
const SPACE = 0x20;
const LINE_FEED = 0x0a;

/** What node:http attaches to a parse error: the packet it was parsing and where it stopped. */
export interface ParseErrorDetails {
  rawPacket?: unknown;
  bytesParsed?: unknown;
}

/**
 * Whether node:http's head limit (16 KiB by default) ran out within the request line rather than
 * the header fields: node:http reports both as HPE_HEADER_OVERFLOW. The packet it was parsing tells
 * them apart. A span that ended within the packet ended at a space if it was the request target
 * (at CR or a colon if it was a header). A span still open at the end of the packet is on a line
 * that starts with a method if it is the request line; one that began in an earlier packet cannot
 * be told from a header value, and counts as one.
 */
export function overflowedInRequestLine(error: ParseErrorDetails): boolean {
  const { rawPacket: packet, bytesParsed: at } = error;
  if (!Buffer.isBuffer(packet) || typeof at !== 'number' || at <= 0 || at > packet.length) return false;
  if (at < packet.length) return packet[at] === SPACE;
  const lineStart = packet.lastIndexOf(LINE_FEED, at - 1) + 1;
  return REQUEST_LINE_START.test(packet.subarray(lineStart, Math.min(at, lineStart + 32)).toString('latin1'));
}
