import type { FieldError } from '../http/errors.ts';
import {
  fieldError,
  isJsonObject,
  member,
  NOT_AN_OBJECT,
  rejectUnknownFields,
  validateInteger,
  validateName,
  type Validated,
} from '../shared/validation.ts';
import { MAX_PRICE_IN_CENTS, type NewProduct, PRODUCT_STATUSES, type ProductStatus } from './model.ts';

const FIELDS = ['name', 'priceInCents', 'status'] as const;

function validateStatus(value: unknown, errors: FieldError[]): ProductStatus | undefined {
  if (value === undefined) return undefined;
  const status = PRODUCT_STATUSES.find((candidate) => candidate === value);
  if (status === undefined) {
    const code = typeof value === 'number' ? 'invalid_enum' : 'type';
    errors.push(fieldError('status', code, `status must be one of ${PRODUCT_STATUSES.join(', ')}`));
  }
  return status;
}

/** Checks a create-product body (API.md §3), reporting every field error at once. */
export function validateNewProduct(body: unknown): Validated<NewProduct> {
  if (!isJsonObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const name = validateName(body, 'name', errors);
  const rawPrice = member(body, 'priceInCents');
  let priceInCents = 0;
  if (rawPrice === undefined) errors.push(fieldError('priceInCents', 'required', 'priceInCents is required'));
  else priceInCents = validateInteger(rawPrice, 'priceInCents', { min: 0, max: MAX_PRICE_IN_CENTS }, errors);
  const status = validateStatus(member(body, 'status'), errors);
  rejectUnknownFields(body, FIELDS, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: status === undefined ? { name, priceInCents } : { name, priceInCents, status } };
}
