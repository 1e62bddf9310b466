import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// The client of docs/events.md, "Following the feed", run as the page shows it: the one `js` block of
// that section, written to a module of its own and imported.
const PAGE = new URL('../../docs/events.md', import.meta.url);
type Follow = (base: string, after: string | null, handle: (event: { id: string; type: string }) => Promise<void>, headers?: Record<string, string>) => Promise<void>;

function clientOfPage(): string {
  const page = readFileSync(PAGE, 'utf8');
  const start = page.indexOf('\n## Following the feed\n');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/^```js\n([\s\S]*?)^```\n/gm)].map((match) => match[1] as string);
  assert.equal(blocks.length, 1, 'the section shows one client');
  return blocks[0] as string;
}

let server: TestServer;
let dir: string;
let follow: Follow;
before(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'svc-events-client-'));
  const code = clientOfPage();
  assert.ok(code.trim().split('\n').length <= 12, 'the client stays about ten lines');
  writeFileSync(join(dir, 'follow.mjs'), code);
  follow = ((await import(pathToFileURL(join(dir, 'follow.mjs')).href)) as { follow: Follow }).follow;
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

class Enough extends Error {}

// Runs the client from `after` until it has handled `count` events; what it handled, in order.
async function handled(after: string | null, count: number): Promise<{ id: string; type: string }[]> {
  const seen: { id: string; type: string }[] = [];
  const stopAt = async (event: { id: string; type: string }): Promise<void> => {
    seen.push(event);
    if (seen.length === count) throw new Enough();
  };
  await assert.rejects(follow(server.url, after, stopAt), Enough);
  return seen;
}

test('the page\'s client hands every event over once, in order, and resumes from a stored id without a gap or a repeat', { timeout: 60_000 }, async () => {
  const create = async (name: string): Promise<void> => assert.equal((await postJson(`${server.url}/api/workspaces`, { name })).status, 201);
  for (const name of ['a', 'b', 'c']) await create(name);
  const first = await handled(null, 2);
  const stored = first.at(-1)?.id ?? null;
  // While the client is down, more changes; then it starts again from the id it stored.
  for (const name of ['d', 'e']) await create(name);
  const waiting = handled(stored, 4);
  // This one arrives while the client polls an empty page.
  setTimeout(() => void create('f'), 300);
  const rest = await waiting;
  const all = [...first, ...rest];
  assert.equal(new Set(all.map((event) => event.id)).size, 6, 'no event twice');
  assert.deepEqual(all.map((event) => event.type), Array(6).fill('workspace.created'));
  const feed = (await (await fetch(`${server.url}/api/events?limit=200`)).json()) as { id: string }[];
  assert.deepEqual(all.map((event) => event.id), feed.map((event) => event.id), 'exactly the feed, in its order');
});
