import type { Resource } from './resource.ts';
import type { Listed } from './rows.ts';

/** The representation of a stored resource: `id`, its fields in their order, `createdAt`, `updatedAt`. */
export type Presenter = (stored: Listed) => Record<string, unknown>;

/** The presenter of `resource`: exactly these members, in this order; no row reaches the wire as it is. */
export function presenterOf(resource: Resource): Presenter {
  const fields = Object.keys(resource.fields);
  return (stored) => {
    const body: Record<string, unknown> = { id: stored.id };
    for (const field of fields) body[field] = stored[field];
    body['createdAt'] = stored.createdAt;
    body['updatedAt'] = stored.updatedAt;
    return body;
  };
}
