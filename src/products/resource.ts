import { choiceField, codeField, integerField, objectField, textField } from '../resources/fields.ts';
import { type ChangeRule, describeResource, type Stored } from '../resources/resource.ts';
import { CURRENCIES } from '../shared/currencies.ts';
import { priceWithCurrency } from './price-with-currency.ts';

/** Product status on the wire and in the database. */
export const ProductStatus = { active: 1, archived: 2 } as const;

const amount = integerField({ min: 0, max: 2_147_483_647, example: 1999, column: 'price_in_cents', description: 'In the currency\'s smallest unit (cents for EUR); a JSON number with no fraction.' });

const fields = {
  name: textField({ min: 1, max: 200, example: 'Desk lamp' }),
  price: objectField({
    members: {
      amount,
      currency: codeField({ values: CURRENCIES, example: 'EUR', column: 'price_currency', description: 'An ISO 4217 code of a currency in force.' }),
    },
  }),
  status: choiceField({ name: 'ProductStatus', values: ProductStatus, default: ProductStatus.active, example: ProductStatus.active }),
};

type Product = Stored<typeof fields>;
const samePrice = (a: Product['price'], b: Product['price']): boolean => a.amount === b.amount && a.currency === b.currency;

/**
 * The business rule no validator can express, because it depends on what is stored: an archived
 * product is read-only except for its status. Archiving, unarchiving, and unarchiving with edits
 * in one patch are allowed; a result that is archived with another name or price is not.
 */
export const archivedIsReadOnly: ChangeRule<Product> = {
  refusal: { code: 'product_archived', status: 409, detail: 'An archived product can only change its status; unarchive it to edit it.' },
  says:
    'An archived product is read-only except for its `status`: a patch whose result is an archived product with another ' +
    'name or price (its amount or its currency) is 409 `product_archived`. A patch may archive, unarchive, or unarchive and edit in one step.',
  breaks: (current, next) => next.status === ProductStatus.archived && (next.name !== current.name || !samePrice(next.price, current.price)),
};

/** Products: a name, a price and a status. */
export const products = describeResource({
  plural: 'products',
  singular: 'product',
  summary: 'Products: name, price and status.',
  fields,
  events: { created: 1, updated: 2, deleted: 3 },
  rules: [archivedIsReadOnly],
  exampleId: 17,
  changes: [priceWithCurrency(amount)],
});
