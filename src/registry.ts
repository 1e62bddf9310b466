// The resources this service serves: the one place that names them all (docs/extending.md). Everything
// else (routes, storage, events, the OpenAPI document, metrics) is derived from this list.
import { products } from './products/resource.ts';
import type { Resource } from './resources/resource.ts';
import { workspaces } from './workspaces/resource.ts';

/** Every resource, in the order of the OpenAPI document. */
export const RESOURCES: readonly Resource[] = [products, workspaces];
