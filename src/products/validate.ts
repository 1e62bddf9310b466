import { enumRule, type Fields, integerRule, nameRule, validateCreate, validatePatch, type Validated } from '../shared/validation.ts';
import { MAX_PRICE_IN_CENTS, type NewProduct, PRODUCT_STATUSES, type ProductPatch } from './model.ts';

// The field rules of docs/api.md, POST /api/products, the one source for creates and patches.
const FIELDS: Fields<NewProduct> = {
  name: { rule: nameRule, required: true },
  priceInCents: { rule: integerRule({ min: 0, max: MAX_PRICE_IN_CENTS }), required: true },
  status: { rule: enumRule(PRODUCT_STATUSES), required: false },
};

/** Checks a create-product body (docs/api.md, POST /api/products), reporting every field error at once. */
export function validateNewProduct(body: unknown): Validated<NewProduct> {
  return validateCreate(body, FIELDS);
}

/** Checks a product merge patch (docs/api.md, PATCH) by the same rules, reporting every field error at once. */
export function validateProductPatch(body: unknown): Validated<ProductPatch> {
  return validatePatch(body, FIELDS);
}
