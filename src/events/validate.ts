import { invalidQuery, parseLimitParam } from '../http/paging.ts';
import type { EventCatalogue } from './catalogue.ts';
import type { EventType } from './model.ts';

/** A validated feed query: where to start, how many, which types (null: all). */
export interface FeedQuery {
  after: string | null;
  limit: number;
  types: readonly EventType[] | null;
}

/** `?type=a,b`: names of event types, each known; the set, lowest first (so equal filters read alike). */
export function parseTypes(catalogue: EventCatalogue, raw: string | null): readonly EventType[] | null {
  if (raw === null) return null;
  const types = new Set<EventType>();
  for (const name of raw.split(',')) {
    const type = catalogue.typeNamed(name.trim());
    if (type === undefined) throw invalidQuery('type', 'invalid_enum', `type must be event type names, comma-separated: ${catalogue.names.join(', ')}`);
    types.add(type);
  }
  return [...types].sort((a, b) => a - b);
}

/** Reads `after`, `limit` and `type` of GET /api/events (docs/events.md); anything else in the query is ignored. */
export function parseFeedQuery(catalogue: EventCatalogue, query: URLSearchParams): FeedQuery {
  return { after: query.get('after'), limit: parseLimitParam(query), types: parseTypes(catalogue, query.get('type')) };
}

/** The query string of a feed page continued after `after` (null: from the oldest kept), for its `next` link. */
export function feedQueryString(catalogue: EventCatalogue, query: FeedQuery, after: string | null): string {
  const type = query.types === null ? '' : `&type=${query.types.map((t) => catalogue.nameOf(t)).join(',')}`;
  return `${after === null ? '' : `after=${after}&`}limit=${query.limit}${type}`;
}
