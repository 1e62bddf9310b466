import { crc32 } from 'node:zlib';

/** A validated list request: page size and the id to continue below (exclusive). */
export interface PageRequest {
  limit: number;
  beforeId: number | null;
}

/** A page of items plus the id to continue from, when more exist. */
export interface Page<T> {
  items: T[];
  nextBeforeId: number | null;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/**
 * Fetches one row more than asked, which tells whether another page exists without a COUNT. Rows
 * fetched at once (a SQLite read) make the page at once; a promise of rows, a promise of the page.
 */
export function pageOf<T extends { id: number }>(request: PageRequest, fetch: (limit: number) => Promise<T[]>): Promise<Page<T>>;
export function pageOf<T extends { id: number }>(request: PageRequest, fetch: (limit: number) => T[] | Promise<T[]>): Page<T> | Promise<Page<T>>;
export function pageOf<T extends { id: number }>(request: PageRequest, fetch: (limit: number) => T[] | Promise<T[]>): Page<T> | Promise<Page<T>> {
  const rows = fetch(request.limit + 1);
  return rows instanceof Promise ? rows.then((fetched) => cutToPage(request, fetched)) : cutToPage(request, rows);
}

function cutToPage<T extends { id: number }>(request: PageRequest, rows: T[]): Page<T> {
  if (rows.length <= request.limit) return { items: rows, nextBeforeId: null };
  const items = rows.slice(0, request.limit);
  return { items, nextBeforeId: items.at(-1)?.id ?? null };
}

const CHECKSUM_BYTES = 4;

// CRC-32 finds a damaged cursor as a cut 4 bytes of SHA-256 did (it is no secret either way), for a
// tenth of the CPU: no hash object per list request.
const checksumOf = (text: string): number => crc32(text);

/**
 * The opaque cursor for "ids below `beforeId`" in one list. It names its list, the resource and
 * any filter (`orders`, `orders;status=2`), so a cursor is not taken by another list or under
 * another filter, and carries a checksum, so a cursor damaged in transit (cut short, a character
 * changed) is refused instead of silently paging elsewhere.
 */
export function encodeCursor(list: string, beforeId: number): string {
  const text = `${list}:${beforeId}`;
  // One buffer, the text then its checksum: a list request makes one cursor.
  const bytes = Buffer.allocUnsafe(text.length + CHECKSUM_BYTES);
  bytes.write(text, 0, 'latin1');
  bytes.writeUInt32BE(checksumOf(text), text.length);
  return bytes.toString('base64url');
}

/** The id a cursor stands for, or null when it is not one this service issued for `list`. */
export function decodeCursor(list: string, cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node's decoder skips junk and spare bits; only the exact text this service wrote counts.
  if (bytes.length <= CHECKSUM_BYTES || bytes.toString('base64url') !== cursor) return null;
  const text = bytes.subarray(0, -CHECKSUM_BYTES).toString('latin1');
  if (bytes.readUInt32BE(bytes.length - CHECKSUM_BYTES) !== checksumOf(text)) return null;
  const colon = text.lastIndexOf(':');
  const digits = text.slice(colon + 1);
  if (text.slice(0, colon) !== list || !/^[1-9]\d{0,15}$/.test(digits)) return null;
  const id = Number(digits);
  return Number.isSafeInteger(id) ? id : null;
}
