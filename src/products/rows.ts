import type { ListedProduct, Product, ProductStatus } from './model.ts';

/**
 * The columns both engines' repositories select, in this order: each returns rows as arrays (about
 * twice as cheap as objects keyed by column name), and this is the one place that reads them.
 */
export const PRODUCT_COLUMNS = ['id', 'name', 'price_in_cents', 'status', 'created_at', 'updated_at', 'version'] as const;

/** A product from a row in PRODUCT_COLUMNS order; PostgreSQL's bigint id may come as text. */
export function productFromRow(row: readonly unknown[]): Product {
  return {
    id: Number(row[0]),
    name: row[1] as string,
    priceInCents: row[2] as number,
    status: row[3] as ProductStatus,
    createdAt: row[4] as string,
    updatedAt: row[5] as string,
    version: row[6] as number,
  };
}

/** The columns of a list page: PRODUCT_COLUMNS without `version`, which no list shows. */
export const LISTED_PRODUCT_COLUMNS = ['id', 'name', 'price_in_cents', 'status', 'created_at', 'updated_at'] as const;

/** A listed product from a row in LISTED_PRODUCT_COLUMNS order. */
export function listedProductFromRow(row: readonly unknown[]): ListedProduct {
  return {
    id: Number(row[0]),
    name: row[1] as string,
    priceInCents: row[2] as number,
    status: row[3] as ProductStatus,
    createdAt: row[4] as string,
    updatedAt: row[5] as string,
  };
}
