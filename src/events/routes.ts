import { Scope } from '../callers/scopes.ts';
import { readVerdictFor } from '../http/conditional.ts';
import { HttpError } from '../http/errors.ts';
import { invalidQuery } from '../http/paging.ts';
import type { Handler, RequestContext, Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { EventRead, StoredEvent } from './model.ts';
import type { EventCatalogue } from './catalogue.ts';
import type { VersionView } from '../versions/api-versions.ts';
import { LIST } from '../versions/model.ts';
import { wantsEventStream } from './stream-handler.ts';
import type { EventUseCases } from './use-cases.ts';
import { feedQueryString, parseFeedQuery } from './validate.ts';

/** The path of the event feed. */
export const EVENTS_PATH = '/api/events';

// A page's body is made of its events' ids alone (the stored rows never change), and no event can
// appear between two a page holds: its count, first and last id name it. In a version after the first
// the tag names the version (the data is shown otherwise) and whether more follow (`hasMore`).
function pageTag(events: readonly StoredEvent[], version: VersionView, hasMore: boolean): string {
  const first = events[0];
  const last = events.at(-1);
  const page = first === undefined || last === undefined ? '0' : `${events.length}-${first.id}-${last.id}`;
  return version === version.first ? `"${page}"` : `"${page}.${version.id}${hasMore ? '+' : ''}"`;
}

function refusal(read: Exclude<EventRead, { kind: 'events' }>): HttpError {
  if (read.kind === 'expired') return new HttpError('events_expired');
  const detail = read.kind === 'malformed' ? 'after must be the id of an event this service issued' : 'after names no event this service issued';
  return invalidQuery('after', 'invalid', detail);
}

/** GET (and HEAD) /api/events as JSON: a page of the feed with its `next` link and ETag (docs/events.md). */
export function feedHandler(events: EventUseCases, catalogue: EventCatalogue): Handler {
  return async (ctx: RequestContext): Promise<Reply> => {
    const query = parseFeedQuery(catalogue, ctx.query);
    // One more than asked: whether more events follow now (`hasMore`, from version 2026-11-28 on).
    const read = await events.feed({ ...query, limit: query.limit + 1 });
    if (read.kind !== 'events') throw refusal(read);
    const hasMore = read.events.length > query.limit;
    const page = hasMore ? read.events.slice(0, query.limit) : read.events;
    const { version } = ctx;
    const etag = pageTag(page, version, hasMore);
    const verdict = readVerdictFor(ctx.req.headers, etag);
    if (verdict === 'failed') throw new HttpError('precondition_failed');
    // An empty page links to the same query again, so a follower polls where it stands.
    const next = page.at(-1)?.id ?? query.after;
    const link = `<${EVENTS_PATH}?${feedQueryString(catalogue, query, next)}>; rel="next"`;
    if (verdict === 'not_modified') return { status: 304, headers: { etag, link } };
    // Each event as the stream and deliveries show it in this version; the list around them is the version's too.
    const body = version.downgrade(LIST, { data: page.map((event) => catalogue.present(event, version)), hasMore });
    return { status: 200, body, headers: { etag, link } };
  };
}

/**
 * Registers the event feed: scope read, like every other read (docs/security.md); with `liveStream`, a
 * GET that asks for text/event-stream gets the live stream on the same path (docs/events.md).
 */
export function addEventRoutes(router: Router<Handler>, events: EventUseCases, catalogue: EventCatalogue, liveStream: Handler | null = null): void {
  const feed = feedHandler(events, catalogue);
  router.add('GET', EVENTS_PATH, Scope.read, liveStream === null ? feed : (ctx) => (wantsEventStream(ctx.req) ? liveStream(ctx) : feed(ctx)));
}
