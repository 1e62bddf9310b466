import type { ScalarField } from '../resources/fields.ts';
import type { FieldTable } from '../resources/resource.ts';
import type { Body, ResourceChange, VersionSpec } from '../versions/model.ts';

/** The version whose one change is this module's: a product's price gets a currency. */
export const V2026_12_05: VersionSpec = {
  version: '2026-12-05',
  summary: 'A product\'s price has a currency: price: { amount, currency } replaces priceInCents.',
};

// `fields` (or a body) with the member `from` replaced, in its place, by `to` (a new name, a new value):
// a representation keeps its order, so the old version's bytes are what they always were.
function replaced<V>(record: Readonly<Record<string, V>>, from: string, to: string, value: V): Record<string, V> {
  const result: Record<string, V> = {};
  for (const name in record) result[name === from ? to : name] = name === from ? value : (record[name] as V);
  return result;
}

/**
 * 2026-12-05: a product's price has a currency. Before it, a product shows `priceInCents` (its price's
 * amount, whatever the currency), a create gets SVC_DEFAULT_CURRENCY, and a patch of `priceInCents`
 * changes the amount only. `amount` is the newest amount field, so the rule of `priceInCents` is its
 * rule, and its column: the representation before is the fields before, read from the newest row
 * (src/resources/presenter.ts), so no downgrade is written.
 */
export function priceWithCurrency(amount: ScalarField<number>): ResourceChange {
  return {
    version: V2026_12_05.version,
    fieldsBefore: (fields: FieldTable) => replaced(fields, 'price', 'priceInCents', amount),
    upgrade(body: Body, { mode, settings }) {
      if (!Object.hasOwn(body, 'priceInCents')) return body;
      const price = mode === 'create' ? { amount: body['priceInCents'], currency: settings.defaultCurrency } : { amount: body['priceInCents'] };
      return replaced(body, 'priceInCents', 'price', price);
    },
  };
}
