import type { ListedProduct, Product, ProductStatus } from './model.ts';

/** Storage of products; each engine implements it in its own file, the only code that knows their SQL. */
export interface ProductRepository {
  /** Stores a new product at version 1; the database assigns an id never used before. */
  insert(product: Omit<Product, 'id' | 'version'>): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** In a write transaction: reads the product and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: number): Promise<Product | undefined>;
  /** Stores every field of `product` (found by its id), updatedAt and version included. */
  update(product: Product): Promise<void>;
  /** Deletes the product; resolves to whether it existed. */
  remove(id: number): Promise<boolean>;
  /**
   * Up to `limit` products with id below `beforeId` (all when null), of one status or any, newest first,
   * without their versions.
   * An engine that reads without waiting (SQLite) may answer at once, without a promise.
   */
  listBefore(beforeId: number | null, limit: number, status: ProductStatus | null): ListedProduct[] | Promise<ListedProduct[]>;
}
