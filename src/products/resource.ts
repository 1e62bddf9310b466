import { choiceField, integerField, textField } from '../resources/fields.ts';
import { type ChangeRule, describeResource, type Stored } from '../resources/resource.ts';

/** Product status on the wire and in the database. */
export const ProductStatus = { active: 1, archived: 2 } as const;

const fields = {
  name: textField({ min: 1, max: 200, example: 'Desk lamp' }),
  priceInCents: integerField({ min: 0, max: 2_147_483_647, example: 1999 }),
  status: choiceField({ name: 'ProductStatus', values: ProductStatus, default: ProductStatus.active, example: ProductStatus.active }),
};

/**
 * The business rule no validator can express, because it depends on what is stored: an archived
 * product is read-only except for its status. Archiving, unarchiving, and unarchiving with edits
 * in one patch are allowed; a result that is archived with another name or price is not.
 */
export const archivedIsReadOnly: ChangeRule<Stored<typeof fields>> = {
  refusal: { code: 'product_archived', status: 409, detail: 'An archived product can only change its status; unarchive it to edit it.' },
  says:
    'An archived product is read-only except for its `status`: a patch whose result is an archived product with another ' +
    '`name` or `priceInCents` is 409 `product_archived`. A patch may archive, unarchive, or unarchive and edit in one step.',
  breaks: (current, next) => next.status === ProductStatus.archived && (next.name !== current.name || next.priceInCents !== current.priceInCents),
};

/** Products: a name, a price in cents and a status. */
export const products = describeResource({
  plural: 'products',
  singular: 'product',
  summary: 'Products: name, price in cents and status.',
  fields,
  events: { created: 1, updated: 2, deleted: 3 },
  rules: [archivedIsReadOnly],
  exampleId: 17,
});
