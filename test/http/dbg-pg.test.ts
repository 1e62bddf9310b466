import { test } from 'node:test';
import { postJson, startTestServer } from '../support/server.ts';
import { openStream } from '../support/event-stream.ts';
test('dbg', { timeout: 120_000 }, async () => {
  const server = await startTestServer();
  await postJson(`${server.url}/api/products`, { name: '€'.repeat(200), priceInCents: 100 });
  const reader = await openStream(`${server.url}/api/events`, { 'x-request-id': 'reader' });
  await new Promise((r) => setTimeout(r, 300));
  await server.database.sql('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) INSERT INTO events (type, created_at, data) SELECT e.type, e.created_at, e.data FROM events e, n');
  await postJson(`${server.url}/api/products`, { name: 'wake', priceInCents: 100 });
  for (let i = 0; i < 2; i++) {
    await new Promise((r) => setTimeout(r, 2000));
    console.log(reader.messages.length, reader.messages.at(-1)?.id, new Set(reader.messages.map((m) => m.id)).size);
  }
  const ids: string[] = []; let after = '';
  for (;;) { const p = (await (await fetch(`${server.url}/api/events?limit=200${after}`)).json()) as { id: string }[]; if (p.length === 0) break; ids.push(...p.map((e) => e.id)); after = `&after=${p.at(-1)!.id}`; }
  console.log('feed', ids.length, new Set(ids).size, ids.slice(195, 205));
  const r = await fetch(`${server.url}/api/events?after=${reader.messages.at(-1)?.id}&limit=5`);
  console.log(r.status, (await r.text()).slice(0, 300));
  console.log(await server.database.sql('select tx::text, seq::text from events order by tx, seq limit 8 offset 195'));
  console.log(await server.database.sql(`select tx::text, seq::text from events where (tx, seq) > ('736'::xid8, 1176::bigint) order by tx, seq limit 3`));
  console.log(await server.database.sql(`explain select tx::text, seq::text from events where (tx, seq) > ('736'::xid8, 1176::bigint) order by tx, seq limit 3`));
  console.log(await server.database.sql('select count(*), min(tx::text), max(tx::text), min(seq), max(seq) from events'));
  reader.close();
  await server.stop();
});
