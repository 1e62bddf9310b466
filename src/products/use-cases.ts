import type { Repositories } from '../db/storage.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import { type NewProduct, type Product, ProductStatus } from './model.ts';
import type { ProductRepository } from './repository.ts';

/** The rules for products, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface ProductUseCases {
  create(tx: Repositories, input: NewProduct): Promise<Product>;
  get(id: number): Promise<Product | undefined>;
  list(request: PageRequest): Promise<Page<Product>>;
}

/** `products` serves reads outside transactions; `now` is the clock of createdAt. */
export function createProductUseCases(products: ProductRepository, now: () => Date = () => new Date()): ProductUseCases {
  return {
    create(tx, input) {
      return tx.products.insert({
        name: input.name,
        priceInCents: input.priceInCents,
        status: input.status ?? ProductStatus.active,
        createdAt: now().toISOString(),
      });
    },
    get: (id) => products.findById(id),
    list: (request) => pageOf(request, (limit) => products.listBefore(request.beforeId, limit)),
  };
}
