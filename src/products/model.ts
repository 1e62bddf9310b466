/** Product status on the wire and in the database (docs/api.md). */
export const ProductStatus = { active: 1, archived: 2 } as const;
export type ProductStatus = (typeof ProductStatus)[keyof typeof ProductStatus];

export const PRODUCT_STATUSES: readonly ProductStatus[] = Object.values(ProductStatus);

export const MAX_PRICE_IN_CENTS = 2_147_483_647;

/** A stored product. `version` starts at 1 and grows with every change; the ETag is made from it. */
export interface Product {
  id: number;
  name: string;
  priceInCents: number;
  status: ProductStatus;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** A product as a page of the list holds it: a list carries no ETags, so it reads no version. */
export type ListedProduct = Omit<Product, 'version'>;

/** A validated create request; `status` is absent when the client left it out. */
export interface NewProduct {
  name: string;
  priceInCents: number;
  status?: ProductStatus;
}

/** A validated merge patch: the fields to replace. */
export type ProductPatch = Partial<NewProduct>;
