import { Scope } from '../callers/scopes.ts';
import { createHandler } from '../http/create-handler.ts';
import { entityTag, refuseMalformedPreconditions } from '../http/conditional.ts';
import { deleteHandler, type ItemSpec, patchHandler, readHandler } from '../http/item-handlers.ts';
import { nextLink, parseEnumFilter, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok, type Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { Page } from '../shared/paging.ts';
import type { WriteDeps } from '../http/write-input.ts';
import { type ListedProduct, type Product, PRODUCT_STATUSES } from './model.ts';
import { presentProduct } from './presenter.ts';
import type { ProductUseCases } from './use-cases.ts';
import { validateNewProduct, validateProductPatch } from './validate.ts';

const PATH = '/api/products';
const ITEM: ItemSpec<Product> = { noun: 'product', present: presentProduct };

/** Registers the product endpoints: thin handlers from HTTP to use cases and back. */
export function addProductRoutes(router: Router<Handler>, products: ProductUseCases, writes: WriteDeps): void {
  router.add('GET', PATH, Scope.read, (ctx) => {
    const status = parseEnumFilter(ctx.query, 'status', PRODUCT_STATUSES);
    // The filter is part of the list's name, so a cursor only continues the list it came from.
    const list = status === null ? 'products' : `products;status=${status}`;
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest(list, ctx.query);
    const reply = (page: Page<ListedProduct>): Reply => {
      const link = nextLink(PATH, list, request, page, status === null ? '' : `&status=${status}`);
      return ok(page.items.map(presentProduct), link === undefined ? undefined : { link });
    };
    // A page read at once (SQLite) is answered at once: no promise per stage.
    const page = products.list({ ...request, status });
    return page instanceof Promise ? page.then(reply) : reply(page);
  });
  router.add('GET', `${PATH}/{id}`, Scope.read, readHandler(ITEM, products.get));
  router.add(
    'POST',
    PATH,
    Scope.write,
    createHandler(writes, {
      validate: validateNewProduct,
      async execute(tx, input) {
        const product = await products.create(tx, input);
        return created(`${PATH}/${product.id}`, presentProduct(product), entityTag(product.version));
      },
    }),
  );
  router.add(
    'PATCH',
    `${PATH}/{id}`,
    Scope.write,
    patchHandler(writes, { ...ITEM, validate: validateProductPatch, change: products.change, refusals: { archived: 'product_archived' } }),
  );
  router.add('DELETE', `${PATH}/{id}`, Scope.write, deleteHandler(writes, { ...ITEM, remove: products.remove }));
}
