import { unauthorized } from '../http/bearer.ts';
import { HttpError } from '../http/errors.ts';
import { invalidQuery } from '../http/paging.ts';
import type { Handler, Reply, RequestContext } from '../http/reply.ts';
import type { LiveFeed } from './live-feed.ts';
import type { EventType } from './model.ts';
import type { EventRepository } from './repository.ts';
import { eventStream, type StreamStart } from './stream.ts';

/** What the live stream of GET /api/events is made of. */
export interface LiveStreamDeps {
  feed: LiveFeed;
  events: EventRepository;
  /** The `type` filter of the query (the feed's own parser: unknown names are 400 invalid_query); `limit` means nothing to a stream. */
  typesOf(query: URLSearchParams): readonly EventType[] | null;
}

const EXPIRED_TOKEN = { reason: 'expired', detail: 'The access token has expired.' } as const;

/**
 * Whether a request asks for the live stream: a GET or HEAD whose Accept names text/event-stream with
 * a weight above 0 (a HEAD gets the stream's checks and head, and no body: src/http/streamed-reply.ts).
 */
export function wantsEventStream(req: { readonly method?: string | undefined; readonly headers: { readonly accept?: string | undefined } }): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const accept = req.headers.accept;
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const weight = parameters.find((parameter) => parameter.startsWith('q='));
    return weight === undefined || Number(weight.slice(2)) > 0;
  });
}

// An event to start after, checked before the stream starts: one the service issued and still keeps.
async function checkedPlace(events: EventRepository, id: string, malformed: 'invalid_header' | 'invalid_query', where: string): Promise<StreamStart> {
  const read = await events.readAfter(id, 1, null);
  if (read.kind === 'malformed' || read.kind === 'unknown') {
    const detail = `${where} is not the id of an event this service recorded.`;
    // A query error names its parameter in `errors`, as the feed's does (docs/api.md, errors).
    throw malformed === 'invalid_query' ? invalidQuery(where, 'invalid', detail) : new HttpError(malformed, { detail });
  }
  if (read.kind === 'expired') throw new HttpError('events_expired', { detail: `The events after the one ${where} names are no longer kept; start again without it.` });
  return { after: id };
}

// Last-Event-ID (a reconnection) first, then `after`, else what is recorded from now on: after the
// newest event, found before the head is sent, so a change the client makes once it sees the stream
// open is always sent to it.
async function startOf(ctx: RequestContext, deps: LiveStreamDeps): Promise<StreamStart> {
  const lastEventId = ctx.req.headers['last-event-id'];
  // Two such fields name no one event: node:http joins them, and the result is malformed.
  if (lastEventId !== undefined) return checkedPlace(deps.events, String(lastEventId), 'invalid_header', 'Last-Event-ID');
  const after = ctx.query.get('after');
  if (after !== null) return checkedPlace(deps.events, after, 'invalid_query', 'after');
  return { after: await deps.feed.place() };
}

/** GET /api/events as a live stream (docs/events.md, The live stream): every check is made before the stream starts. */
export function liveStreamHandler(deps: LiveStreamDeps): Handler {
  return async (ctx): Promise<Reply> => {
    const types = deps.typesOf(ctx.query);
    // A token already past its exp (within the clock-skew allowance) would open a stream that ends at once.
    const expiresAt = ctx.caller?.expiresAt;
    if (expiresAt !== undefined && expiresAt <= Date.now()) throw unauthorized(EXPIRED_TOKEN);
    const start = await startOf(ctx, deps);
    return { status: 200, stream: eventStream(deps.feed, deps.events, start, types, ctx.version) };
  };
}
