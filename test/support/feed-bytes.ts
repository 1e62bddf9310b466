import assert from 'node:assert/strict';
import { VERSIONS } from '../../src/registry.ts';
import { eventually } from './webhook-receiver.ts';

// The newest version: never past a sunset, so the feed can always be walked in it.
const NEWEST = VERSIONS.at(-1)?.version ?? '';

// The ids of the feed, oldest first, page after page, read in the newest version (a list is `{ data, hasMore }` there).
async function feedIds(base: string, headers: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const after = ids.length === 0 ? '' : `&after=${ids.at(-1)}`;
    const answer = await fetch(`${base}/api/events?limit=200${after}`, { headers: { ...headers, 'api-version': NEWEST } });
    assert.equal(answer.status, 200);
    const page = ((await answer.json()) as { data: { id: string }[] }).data;
    if (page.length === 0) return ids;
    ids.push(...page.map((event) => event.id));
  }
}

/**
 * The exact JSON text of event `id` as `GET /api/events` shows it in `version`: its page of one (after
 * the event before it), unwrapped from the array of 2026-11-21 or the `{ "data": [...], "hasMore": … }` of
 * the later versions. Waits for the event to be in the feed (on PostgreSQL a delivery may arrive first).
 */
export async function feedBytesOf(base: string, id: string, version: string, headers: Record<string, string> = {}): Promise<string> {
  const ids = await eventually(async () => {
    const all = await feedIds(base, headers);
    return all.includes(id) ? all : undefined;
  }, 15_000, `event ${id} in the feed`);
  const before = ids[ids.indexOf(id) - 1];
  const page = await fetch(`${base}/api/events?limit=1${before === undefined ? '' : `&after=${before}`}`, { headers: { ...headers, 'api-version': version } });
  assert.deepEqual([page.status, page.headers.get('api-version')], [200, version]);
  const text = await page.text();
  const wrapped = /^\[(.*)\]$/s.exec(text) ?? /^\{"data":\[(.*)\],"hasMore":(?:true|false)\}$/s.exec(text);
  assert.ok(wrapped !== null, `a page of one event: ${text}`);
  const bytes = wrapped[1] as string;
  assert.equal((JSON.parse(bytes) as { id: string }).id, id);
  return bytes;
}
