import type { VersionSpec } from './model.ts';

/** A product's price gets a currency; the change itself is the products' (src/products/price-with-currency.ts). */
export const V2026_12_05: VersionSpec = {
  version: '2026-12-05',
  summary: 'A product\'s price has a currency: price: { amount, currency } replaces priceInCents.',
};
