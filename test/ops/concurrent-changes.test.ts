import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { PRODUCT, startTwoProcesses, type TwoProcesses } from './support.ts';

const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;

// Ten clients read version 1 and each tries to change it: exactly one may win (docs/api.md, PATCH).
async function raceOnOneTag(urls: readonly string[]): Promise<{ patches: number[]; deletes: number[]; final: Record<string, unknown> }> {
  const created = await postJson(`${urls[0]}/api/products`, PRODUCT);
  const path = created.headers.get('location') ?? '';
  const etag = created.headers.get('etag') ?? '';
  await created.arrayBuffer();
  const patches = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const response = await patchJson(`${urls[i % urls.length]}${path}`, { name: `winner ${i}` }, { 'if-match': etag });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const final = (await (await fetch(`${urls[0]}${path}`)).json()) as Record<string, unknown>;
  const current = (await fetch(`${urls[0]}${path}`, { method: 'HEAD' })).headers.get('etag') ?? '';
  const deletes = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const response = await fetch(`${urls[i % urls.length]}${path}`, { method: 'DELETE', headers: { 'if-match': current } });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  return { patches, deletes, final };
}

function assertOneWinner(result: Awaited<ReturnType<typeof raceOnOneTag>>): void {
  assert.equal(count(result.patches, 200), 1, `PATCH statuses ${result.patches.join(',')}`);
  assert.equal(count(result.patches, 412), 9, `PATCH statuses ${result.patches.join(',')}`);
  assert.match(String(result.final['name']), /^winner \d$/);
  assert.equal(count(result.deletes, 204), 1, `DELETE statuses ${result.deletes.join(',')}`);
  // The losers find the resource gone (404) or, if they were checked first, the tag stale (412).
  assert.equal(count(result.deletes, 404) + count(result.deletes, 412), 9, `DELETE statuses ${result.deletes.join(',')}`);
}

describe('in one process', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('ten concurrent PATCHes with the same If-Match: exactly one 200, nine 412; then one DELETE wins', async () => {
    for (let round = 0; round < 5; round++) assertOneWinner(await raceOnOneTag([server.url]));
  });

  test('changes committed together stay independent: refused ones change nothing, the others all land', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await postJson(`${server.url}/api/products`, { ...PRODUCT, status: i % 3 === 0 ? 2 : 1 });
      ids.push(((await response.json()) as { id: number }).id);
    }
    // In one burst: renames (refused for archived ones), stale tags, deletes, creates.
    const sends = ids.flatMap((id, i) => [
      patchJson(`${server.url}/api/products/${id}`, { name: `renamed ${i}` }),
      patchJson(`${server.url}/api/products/${id}`, { priceInCents: 5 }, { 'if-match': '"99"' }),
      ...(i % 4 === 1 ? [fetch(`${server.url}/api/products/${id}`, { method: 'DELETE', headers: { 'if-match': '"2"' } })] : []),
      postJson(`${server.url}/api/products`, { ...PRODUCT, name: `burst ${i}` }),
    ]);
    const responses = await Promise.all(sends);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    for (const [i, id] of ids.entries()) {
      const read = await fetch(`${server.url}/api/products/${id}`);
      if (i % 4 === 1 && i % 3 !== 0) {
        // renamed to version 2 in the same burst, then deleted with If-Match "2" if the rename came first
        assert.ok([200, 404].includes(read.status));
        await read.arrayBuffer();
        continue;
      }
      const product = (await read.json()) as { name: string; priceInCents: number };
      assert.equal(product.priceInCents, PRODUCT.priceInCents, 'a stale If-Match changed nothing');
      assert.equal(product.name, i % 3 === 0 ? PRODUCT.name : `renamed ${i}`);
    }
    assert.equal(responses.filter((r) => r.status === 201).length, ids.length, 'every create of the burst landed');
  });
});

describe('across two processes on one database', () => {
  let two: TwoProcesses;
  before(async () => {
    two = await startTwoProcesses();
  });
  after(() => two.stop());

  test('ten concurrent PATCHes with the same If-Match, split over both: exactly one 200; then one DELETE wins', async () => {
    for (let round = 0; round < 5; round++) assertOneWinner(await raceOnOneTag(two.urls));
    const errors = two.servers.flatMap((server) => server.lines.filter((line) => Number(line['level']) >= 50));
    assert.deepEqual(errors, []);
  });
});
