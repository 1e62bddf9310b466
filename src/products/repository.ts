import type { Product } from './model.ts';

/** Storage of products; each engine implements it in its own file, the only code that knows their SQL. */
export interface ProductRepository {
  insert(product: Omit<Product, 'id'>): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** Up to `limit` products with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Promise<Product[]>;
}
