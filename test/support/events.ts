import assert from 'node:assert/strict';

/** An Event as the feed answers it (docs/events.md). */
export interface WireEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** One page of the feed: its events, its `next` link's target (path and query) and its ETag. */
export interface FeedPage {
  status: number;
  events: WireEvent[];
  next: string;
  etag: string | null;
}

/** GETs one page of the feed at `path` (`/api/events?…`) and reads its `Link: <…>; rel="next"`. */
export async function readFeed(base: string, path: string, headers: Record<string, string> = {}): Promise<FeedPage> {
  const response = await fetch(`${base}${path}`, { headers });
  const link = response.headers.get('link') ?? '';
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  assert.ok(match !== null, `a next link on every page: ${link} (${response.status})`);
  const events = response.status === 200 ? ((await response.json()) as WireEvent[]) : [];
  return { status: response.status, events, next: match[1] as string, etag: response.headers.get('etag') };
}

/** Follows `next` from `path` until a page comes back empty; every event seen, in order. */
export async function followToEnd(base: string, path: string): Promise<{ events: WireEvent[]; next: string }> {
  const events: WireEvent[] = [];
  let next = path;
  for (;;) {
    const page = await readFeed(base, next);
    assert.equal(page.status, 200);
    events.push(...page.events);
    if (page.events.length === 0) return { events, next: page.next };
    next = page.next;
  }
}

/** An id of the same form as `id` that names no event (a place far beyond it). */
export function unknownIdLike(id: string): string {
  const [tx, seq] = id.split('_');
  return seq === undefined ? String(Number(tx) + 1_000_000) : `${tx}_${Number(seq) + 1_000_000}`;
}

/**
 * Follows `next` from `path`, reading an empty page again after a pause, until `done` holds for the
 * events seen; rejects after `timeoutMs`. On PostgreSQL an event becomes visible once every
 * transaction that began before it has ended (docs/events.md), so a follower polls, as a client does.
 */
export async function followUntil(
  base: string,
  path: string,
  done: (events: readonly WireEvent[]) => boolean,
  timeoutMs = 15_000,
): Promise<{ events: WireEvent[]; next: string }> {
  const deadline = performance.now() + timeoutMs;
  const events: WireEvent[] = [];
  let next = path;
  while (!done(events)) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${events.length} events seen from ${path}`);
    const page = await readFeed(base, next);
    assert.equal(page.status, 200);
    events.push(...page.events);
    if (page.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    next = page.next;
  }
  return { events, next };
}

/**
 * Records a marker (a workspace named `name`) and follows from `after` until it is seen: every change
 * acknowledged before it is then visible too. The events before the marker, and the marker's id.
 */
export async function settle(base: string, after: string | null, name = 'marker'): Promise<{ events: WireEvent[]; marker: string }> {
  const created = await fetch(`${base}/api/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };
  const isMarker = (event: WireEvent): boolean => event.type === 'workspace.created' && event.data['id'] === id;
  const { events } = await followUntil(base, after === null ? '/api/events?limit=200' : `/api/events?after=${after}&limit=200`, (seen) => seen.some(isMarker));
  const at = events.findIndex(isMarker);
  return { events: events.slice(0, at), marker: (events[at] as WireEvent).id };
}
