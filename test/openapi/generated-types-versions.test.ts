import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { startTestServer, type TestServer } from '../support/server.ts';
import { checkTypedClient, type ClientFile, type Mutant, type TypedClient } from './generated-types.ts';

// A client program per API version, each generated (openapi-typescript) from its version's document
// as the server serves it, each compiled against its own types and not against the other's, both run
// against one server at the same time: typed-client/client.ts is written against 2026-11-21 (products
// with `priceInCents`, lists as arrays), client-2026-12-05.ts against 2026-12-05 (`price: { amount,
// currency }`, lists as pages). Each sends its version in Api-Version.
type Json = Record<string, unknown>;
const OLDEST = '2026-11-21';
const NEWEST = '2026-12-05';
const PROGRAMS: Readonly<Record<string, ClientFile>> = { [OLDEST]: 'client.ts', [NEWEST]: 'client-2026-12-05.ts' };

// Each is one line of the 2026-12-05 program changed into what the 2026-11-21 one would write, or what no version takes.
const MUTANTS: Mutant[] = [
  { name: 'priceInCents in a create', from: "{ name: 'Paper lantern', price: { amount: 1200, currency: 'JPY' } }", to: "{ name: 'Paper lantern', priceInCents: 1200 }" },
  { name: 'priceInCents in a patch', from: '{ price: { amount: 1500 } }', to: '{ priceInCents: 1500 }' },
  { name: 'a price without its currency in a create', from: "price: { amount: -1, currency: 'JPY' } }", to: 'price: { amount: -1 } }' },
  { name: 'a currency that is not served', from: "amount: 1200, currency: 'JPY'", to: "amount: 1200, currency: 'XTS'" },
  { name: 'a page read as an array', from: 'const { data: page, hasMore } = expect(answer, 200);', to: 'const [first] = expect(answer, 200);' },
  { name: 'a price read as a number', from: 'export interface PriceReport {', to: 'const wrong: number = ({} as Product).price;\nexport interface PriceReport {' },
  { name: 'another API version than the document\'s', from: "API_VERSION: ApiVersion = '2026-12-05'", to: "API_VERSION: ApiVersion = '2026-11-21'" },
].map((mutant) => ({ ...mutant, source: 'client-2026-12-05.ts' as const }));

interface Product {
  id: number;
  name: string;
  price: { amount: number; currency: string };
  status: number;
}
interface PriceReport {
  created: Product;
  read: Product;
  repriced: Product;
  page: Product[];
  hasMore: boolean;
  next: string | undefined;
  invalid: string[];
  events: { type: string; data: Product }[];
  answeredIn: string[];
}
interface Report {
  defaulted: { id: number; priceInCents: number };
  pages: { id: number }[][];
  answeredIn: string[];
}

let server: TestServer;
const documents = new Map<string, string>();
const typed = new Map<string, TypedClient>();
before(async () => {
  server = await startTestServer();
  for (const [version, program] of Object.entries(PROGRAMS)) {
    const served = await fetch(`${server.url}/api/openapi.json?version=${version}`);
    assert.equal(served.headers.get('api-version'), version);
    documents.set(version, await served.text());
    typed.set(version, checkTypedClient(documents.get(version) ?? '', version === NEWEST ? MUTANTS : [], { files: [program] }));
  }
});
after(async () => {
  for (const client of typed.values()) client.remove();
  await server.stop();
});

test('each program compiles against the types of its own version\'s document', () => {
  for (const [version, client] of typed) assert.deepEqual(client.diagnostics.filter((d) => !d.file.startsWith('mutant-')), [], version);
});

test('every deliberate error in the 2026-12-05 program fails to compile, on its own line', () => {
  const client = typed.get(NEWEST) as TypedClient;
  assert.equal(client.mutants.length, MUTANTS.length);
  for (const mutant of client.mutants) {
    const errors = client.diagnostics.filter((d) => d.file === mutant.file);
    assert.ok(errors.some((d) => d.line === mutant.line), `${mutant.name}: expected an error on line ${mutant.line}, got ${JSON.stringify(errors)}`);
  }
});

test('neither program compiles against the other version\'s types: the price and the pages differ', () => {
  for (const [version, program] of Object.entries(PROGRAMS)) {
    const other = Object.keys(PROGRAMS).find((id) => id !== version) ?? '';
    const crossed = checkTypedClient(documents.get(other) ?? '', [], { files: [program] });
    try {
      const errors = crossed.diagnostics.map((d) => `${d.file}:${d.line} ${d.text}`).join('\n');
      assert.ok(errors.includes(`Type '"${version}"' is not assignable to type '"${other}"'`), `${program} against ${other}: its version`);
      assert.match(errors, /priceInCents|'price'/, `${program} against ${other}: the price`);
      assert.match(errors, /hasMore|'data'/, `${program} against ${other}: a page`);
    } finally {
      crossed.remove();
    }
  }
});

test('both programs run against one server at the same time, each answered in its own version', async () => {
  const load = async <M>(version: string): Promise<M> => (await import(pathToFileURL(join(typed.get(version)?.folder ?? '', PROGRAMS[version] ?? '')).href)) as M;
  const oldest = await load<{ scenario(base: string): Promise<Report> }>(OLDEST);
  const newest = await load<{ priceScenario(base: string): Promise<PriceReport> }>(NEWEST);
  const [report, priced] = await Promise.all([oldest.scenario(server.url), newest.priceScenario(server.url)]);
  assert.deepEqual([report.answeredIn, priced.answeredIn], [[OLDEST], [NEWEST]]);
  assert.equal(report.defaulted.priceInCents, 1999);
  assert.deepEqual(priced.created.price, { amount: 1200, currency: 'JPY' });
  assert.deepEqual(priced.read, priced.created);
  assert.deepEqual(priced.repriced.price, { amount: 1500, currency: 'JPY' }, 'a patch of the amount keeps the currency');
  assert.equal(priced.page.length, 1);
  assert.deepEqual([priced.hasMore, priced.next !== undefined], [true, true], 'more products follow, as the Link says');
  assert.deepEqual(priced.invalid, ['/price/amount too_small']);
  assert.deepEqual(priced.events.map((event) => [event.type, event.data.price]), [
    ['product.created', { amount: 1200, currency: 'JPY' }],
    ['product.updated', { amount: 1500, currency: 'JPY' }],
  ]);
  // The product the 2026-12-05 program made, as a 2026-11-21 program reads it: its amount, no currency.
  const seen = (await (await fetch(`${server.url}/api/products/${priced.created.id}`, { headers: { 'api-version': OLDEST } })).json()) as Json;
  assert.deepEqual([seen['priceInCents'], 'price' in seen], [1500, false]);
});
