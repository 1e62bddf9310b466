// What this service serves: its resources and its API versions, each listed once here. Everything else
// (routes, storage, events, the OpenAPI documents, metrics, the versions' chains) is derived from these
// lists (docs/extending.md, docs/versions.md).
import { V2026_12_05 } from './products/price-with-currency.ts';
import { products } from './products/resource.ts';
import type { Resource } from './resources/resource.ts';
import type { VersionSpec } from './versions/model.ts';
import { V2026_11_21 } from './versions/v2026-11-21.ts';
import { V2026_11_28 } from './versions/v2026-11-28.ts';
import { workspaces } from './workspaces/resource.ts';

/** Every resource, in the order of the OpenAPI document. */
export const RESOURCES: readonly Resource[] = [products, workspaces];

/** Every API version, oldest first; the last is the newest, the one the use cases implement. */
export const VERSIONS: readonly VersionSpec[] = [V2026_11_21, V2026_11_28, V2026_12_05];
