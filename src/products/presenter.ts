import type { ListedProduct } from './model.ts';

/** The Product representation of docs/api.md: exactly these members, in this order. */
export function presentProduct(product: ListedProduct): object {
  return {
    id: product.id,
    name: product.name,
    priceInCents: product.priceInCents,
    status: product.status,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
  };
}
