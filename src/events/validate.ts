import { invalidQuery, parseLimitParam } from '../http/paging.ts';
import { EVENT_TYPE_NAMES, EVENT_TYPES, type EventType, eventTypeNamed } from './model.ts';

/** A validated feed query: where to start, how many, which types (null: all). */
export interface FeedQuery {
  after: string | null;
  limit: number;
  types: readonly EventType[] | null;
}

const ALL_NAMES = EVENT_TYPES.map((type) => EVENT_TYPE_NAMES[type]).join(', ');

/** `?type=a,b`: names of event types, each known; the set, lowest first (so equal filters read alike). */
export function parseTypes(raw: string | null): readonly EventType[] | null {
  if (raw === null) return null;
  const types = new Set<EventType>();
  for (const name of raw.split(',')) {
    const type = eventTypeNamed(name.trim());
    if (type === undefined) throw invalidQuery('type', 'invalid_enum', `type must be event type names, comma-separated: ${ALL_NAMES}`);
    types.add(type);
  }
  return [...types].sort((a, b) => a - b);
}

/** Reads `after`, `limit` and `type` of GET /api/events (docs/events.md); anything else in the query is ignored. */
export function parseFeedQuery(query: URLSearchParams): FeedQuery {
  return { after: query.get('after'), limit: parseLimitParam(query), types: parseTypes(query.get('type')) };
}

/** The query string of a feed page continued after `after` (null: from the oldest kept), for its `next` link. */
export function feedQueryString(query: FeedQuery, after: string | null): string {
  const type = query.types === null ? '' : `&type=${query.types.map((t) => EVENT_TYPE_NAMES[t]).join(',')}`;
  return `${after === null ? '' : `after=${after}&`}limit=${query.limit}${type}`;
}
