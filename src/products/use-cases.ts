import type { Repositories } from '../db/storage.ts';
import { applyPatch, type ChangeOutcome, type ChangeRule, type Precondition, removeVersioned, type RemoveOutcome } from '../shared/changes.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import { type ListedProduct, type NewProduct, type Product, type ProductPatch, ProductStatus } from './model.ts';
import type { ProductRepository } from './repository.ts';

/** A page request of the product list, optionally of one status. */
export interface ProductPageRequest extends PageRequest {
  status: ProductStatus | null;
}

/** What a product change did; `archived`: refused by the archived rule. */
export type ProductChangeOutcome = ChangeOutcome<Product> | { kind: 'archived' };

/** The rules for products, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface ProductUseCases {
  create(tx: Repositories, input: NewProduct): Promise<Product>;
  get(id: number): Promise<Product | undefined>;
  /** The page at once when the repository read it at once (SQLite), else its promise. */
  list(request: ProductPageRequest): Page<ListedProduct> | Promise<Page<ListedProduct>>;
  change(tx: Repositories, id: number, patch: ProductPatch, precondition: Precondition): Promise<ProductChangeOutcome>;
  remove(tx: Repositories, id: number, precondition: Precondition): Promise<RemoveOutcome>;
}

/**
 * The business rule no validator can express, because it depends on what is stored: an archived
 * product is read-only except for its status. Archiving, unarchiving, and unarchiving with edits
 * in one patch are allowed; a result that is archived with another name or price is not.
 */
export const archivedIsReadOnly: ChangeRule<Product, 'archived'> = (current, next) =>
  next.status === ProductStatus.archived && (next.name !== current.name || next.priceInCents !== current.priceInCents)
    ? 'archived'
    : null;

/** `products` serves reads outside transactions; `now` is the clock of createdAt and updatedAt. */
export function createProductUseCases(products: ProductRepository, now: () => Date = () => new Date()): ProductUseCases {
  return {
    create(tx, input) {
      const at = now().toISOString();
      const status = input.status ?? ProductStatus.active;
      return tx.products.insert({ name: input.name, priceInCents: input.priceInCents, status, createdAt: at, updatedAt: at });
    },
    get: (id) => products.findById(id),
    list: (request) => pageOf(request, (limit) => products.listBefore(request.beforeId, limit, request.status)),
    change: (tx, id, patch, precondition) => applyPatch<Product, 'archived'>(tx.products, { id, patch, precondition, now: now() }, archivedIsReadOnly),
    remove: (tx, id, precondition) => removeVersioned(tx.products, id, precondition),
  };
}
