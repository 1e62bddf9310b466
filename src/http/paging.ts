import { DEFAULT_LIMIT, decodeCursor, encodeCursor, MAX_LIMIT, type Page, type PageRequest } from '../shared/paging.ts';
import { HttpError } from './errors.ts';

function invalidQuery(parameter: string, code: string, detail: string): HttpError {
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

/** Reads `limit` and `cursor`; anything else in the query is ignored. */
export function parsePageRequest(resource: string, query: URLSearchParams): PageRequest {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? DEFAULT_LIMIT : parseLimit(rawLimit);
  const rawCursor = query.get('cursor');
  let beforeId: number | null = null;
  if (rawCursor !== null) {
    beforeId = decodeCursor(resource, rawCursor);
    if (beforeId === null) throw invalidQuery('cursor', 'invalid_cursor', 'cursor is not one this service issued for this list');
  }
  return { limit, beforeId };
}

/** The `Link` header value for the next page, or undefined on the last page. */
export function nextLink(path: string, resource: string, request: PageRequest, page: Page<unknown>): string | undefined {
  if (page.nextBeforeId === null) return undefined;
  return `<${path}?limit=${request.limit}&cursor=${encodeCursor(resource, page.nextBeforeId)}>; rel="next"`;
}
