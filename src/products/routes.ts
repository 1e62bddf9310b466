import { createHandler, type WriteDeps } from '../http/create-handler.ts';
import { HttpError } from '../http/errors.ts';
import { nextLink, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok, parseId } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { presentProduct } from './presenter.ts';
import type { ProductUseCases } from './use-cases.ts';
import { validateNewProduct } from './validate.ts';

const PATH = '/api/products';

/** Registers the product endpoints: thin handlers from HTTP to use cases and back. */
export function addProductRoutes(router: Router<Handler>, products: ProductUseCases, writes: WriteDeps): void {
  router.add('GET', PATH, async (ctx) => {
    const request = parsePageRequest('products', ctx.query);
    const page = await products.list(request);
    const link = nextLink(PATH, 'products', request, page);
    return ok(page.items.map(presentProduct), link === undefined ? undefined : { link });
  });
  router.add('GET', `${PATH}/{id}`, async (ctx) => {
    const id = parseId(ctx.params['id']);
    const product = id === null ? undefined : await products.get(id);
    if (product === undefined) throw new HttpError('not_found', { detail: 'No product has this id.' });
    return ok(presentProduct(product));
  });
  router.add(
    'POST',
    PATH,
    createHandler(writes, {
      validate: validateNewProduct,
      async execute(tx, input) {
        const product = await products.create(tx, input);
        return created(`${PATH}/${product.id}`, presentProduct(product));
      },
    }),
  );
}
