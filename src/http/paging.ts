import { DEFAULT_LIMIT, decodeCursor, encodeCursor, MAX_LIMIT, type Page, type PageRequest } from '../shared/paging.ts';
import { HttpError } from './errors.ts';
import { ok, type Reply } from './reply.ts';
import type { VersionView } from '../versions/api-versions.ts';
import { LIST } from '../versions/model.ts';

/** A 400 invalid_query naming the parameter, with one entry in `errors`. */
export function invalidQuery(parameter: string, code: string, detail: string): HttpError {
  return new HttpError('invalid_query', { detail, errors: [{ parameter, code, detail }] });
}

function parseLimit(raw: string): number {
  const detail = `limit must be an integer from 1 to ${MAX_LIMIT}`;
  if (!/^\d{1,16}$/.test(raw)) throw invalidQuery('limit', 'not_integer', detail);
  const limit = Number(raw);
  if (limit < 1) throw invalidQuery('limit', 'too_small', detail);
  if (limit > MAX_LIMIT) throw invalidQuery('limit', 'too_large', detail);
  return limit;
}

/** Reads `limit` (1..MAX_LIMIT, DEFAULT_LIMIT when absent); a bad one is 400 invalid_query. */
export function parseLimitParam(query: URLSearchParams): number {
  const raw = query.get('limit');
  return raw === null ? DEFAULT_LIMIT : parseLimit(raw);
}

/**
 * Reads `limit` and `cursor` for the list named `list` (the resource and its filter, as the
 * cursor records it); anything else in the query is ignored.
 */
export function parsePageRequest(list: string, query: URLSearchParams): PageRequest {
  const limit = parseLimitParam(query);
  const rawCursor = query.get('cursor');
  let beforeId: number | null = null;
  if (rawCursor !== null) {
    beforeId = decodeCursor(list, rawCursor);
    if (beforeId === null) throw invalidQuery('cursor', 'invalid_cursor', 'cursor is not one this service issued for this list and filter');
  }
  return { limit, beforeId };
}

/** An integer enum filter such as `?status=2`: its value, or null when absent; anything else is 400 invalid_query. */
export function parseEnumFilter<T extends number>(query: URLSearchParams, name: string, allowed: readonly T[]): T | null {
  const raw = query.get(name);
  if (raw === null) return null;
  const found = allowed.find((value) => String(value) === raw);
  if (found === undefined) throw invalidQuery(name, 'invalid_enum', `${name} must be one of ${allowed.join(', ')}`);
  return found;
}

/** The `Link` header value for the next page, or undefined on the last page; `filter` is `&status=2` or ''. */
export function nextLink(path: string, list: string, request: PageRequest, page: Page<unknown>, filter = ''): string | undefined {
  if (page.nextBeforeId === null) return undefined;
  return `<${path}?limit=${request.limit}${filter}&cursor=${encodeCursor(list, page.nextBeforeId)}>; rel="next"`;
}

/**
 * The answer of a list page in the request's API version: the newest shape is `{ "data": items,
 * "hasMore" }` (hasMore exactly when a next page is linked), which the first version shows as the array.
 */
export function listReply(version: VersionView, items: readonly unknown[], link: string | undefined): Reply {
  const body = version.downgrade(LIST, { data: items, hasMore: link !== undefined });
  return ok(body, link === undefined ? undefined : { link });
}

