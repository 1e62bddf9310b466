import assert from 'node:assert/strict';

/** An Event as the feed answers it (API.md §16). */
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
