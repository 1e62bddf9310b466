// A client program written against API version 2026-12-05, only against the types openapi-typescript
// generates from that version's document (`./api.ts`, generated next to a copy of this file and of
// call.ts by test/openapi/generated-types.ts): a product's price has a currency, and a list is a page
// object. test/openapi/generated-types-versions.test.ts type-checks it, checks that its mutants do not
// compile, and runs it against a live server at the same time as client.ts, written against 2026-11-21.
import type { components } from './api.ts';
import { type ApiVersion, createClient, expect, nextLink } from './call.ts';

/** The API version this program is written against: its types allow no other. */
export const API_VERSION: ApiVersion = '2026-12-05';

type Schemas = components['schemas'];
/** A product as this version answers it: `price` is `{ amount, currency }`. */
export type Product = Schemas['Product'];
/** The body of a product create in this version. */
export type NewProduct = Schemas['NewProduct'];
/** The body of a product change (JSON Merge Patch) in this version. */
export type ProductPatch = Schemas['ProductPatch'];
/** An event of the feed, its data as this version shows it. */
export type Event = Schemas['Event'];

/** What the scenario sent and received, for the test to compare. */
export interface PriceReport {
  created: Product;
  read: Product;
  repriced: Product;
  /** The first page of products (one), and whether the page said more follow. */
  page: Product[];
  hasMore: boolean;
  next: string | undefined;
  invalid: string[];
  /** The events of the created product, as this version shows them. */
  events: Event[];
  /** The Api-Version of every answer. */
  answeredIn: string[];
}

/** Creates a product with a price in yen, reads it back, changes its amount alone, lists a page, meets a 422, reads its events. */
export async function priceScenario(base: string, credential?: string): Promise<PriceReport> {
  const api = createClient(base, API_VERSION, credential);
  const lantern: NewProduct = { name: 'Paper lantern', price: { amount: 1200, currency: 'JPY' } };
  const created = expect(await api.call('post', '/api/products', { body: lantern }), 201);
  const read = expect(await api.call('get', '/api/products/{id}', { params: { path: { id: created.id } } }), 200);
  // A merge patch of the amount alone: the currency stays.
  const repricing: ProductPatch = { price: { amount: 1500 } };
  const repriced = expect(await api.call('patch', '/api/products/{id}', { params: { path: { id: created.id } }, body: repricing }), 200);
  // A page is an object in this version: its items, and whether more follow.
  const answer = await api.call('get', '/api/products', { params: { query: { limit: 1 } } });
  const { data: page, hasMore } = expect(answer, 200);
  const rejected = await api.call('post', '/api/products', { body: { name: 'Lantern', price: { amount: -1, currency: 'JPY' } } });
  const invalid = (expect(rejected, 422).errors ?? []).map((error) => ('pointer' in error ? `${error.pointer} ${error.code}` : `${error.parameter} ${error.code}`));
  // The feed, one page of it, as this version shows it (this client asks for JSON, not the stream).
  const feed = expect(await api.call('get', '/api/events', { params: { query: { limit: 200 } } }), 200) as { data: Event[]; hasMore: boolean };
  const events = feed.data.filter((event) => event.type.startsWith('product.') && event.data.id === created.id);
  return { created, read, repriced, page, hasMore, next: nextLink(answer.headers), invalid, events, answeredIn: api.answeredIn() };
}
