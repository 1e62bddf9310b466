import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import { type NewProduct, type Product, ProductStatus } from './model.ts';
import type { ProductRepository } from './repository.ts';

/** The rules for products, independent of HTTP. */
export interface ProductUseCases {
  create(input: NewProduct): Product;
  get(id: number): Product | undefined;
  list(request: PageRequest): Page<Product>;
}

export function createProductUseCases(repository: ProductRepository, now: () => Date = () => new Date()): ProductUseCases {
  return {
    create(input) {
      return repository.insert({
        name: input.name,
        priceInCents: input.priceInCents,
        status: input.status ?? ProductStatus.active,
        createdAt: now().toISOString(),
      });
    },
    get: (id) => repository.findById(id),
    list: (request) => pageOf(request, (limit) => repository.listBefore(request.beforeId, limit)),
  };
}
