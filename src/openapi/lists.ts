import { listReply } from '../http/paging.ts';
import type { VersionView } from '../versions/api-versions.ts';
import type { OpenApiOptions } from './options.ts';
import { closedObject, type JsonObject } from './schemas.ts';

/** What `hasMore` means on a list of the resources, keys, webhooks and deliveries. */
export const MORE_PAGES = 'True exactly when this answer carries `Link` with `rel="next"`: more items follow.';

// A page as `version` shows it: the newest page (`listReply`, the one that answers every list) made
// down to that version, so a version that changes lists changes this document with it.
function pageIn(version: VersionView, items: readonly unknown[]): unknown {
  return listReply(version, items, undefined).body;
}

/**
 * The schema of a list answer in `version` whose items are `items`: an array where the version shows
 * one, else the object it shows, each member described by its kind: the items (an array), and a flag
 * whose meaning is `flag`.
 */
export function listSchema(version: VersionView, items: JsonObject, flag: string): JsonObject {
  const page = pageIn(version, []);
  if (Array.isArray(page)) return { type: 'array', items };
  const properties: JsonObject = {};
  for (const [name, value] of Object.entries(page as JsonObject)) {
    if (Array.isArray(value)) properties[name] = { type: 'array', items, description: 'The items of this page, in the order of the list.' };
    else if (typeof value === 'boolean') properties[name] = { type: 'boolean', description: flag };
    else throw new Error(`a list page's member ${name} is neither its items nor a flag: describe it in src/openapi/lists.ts`);
  }
  return closedObject(Object.keys(properties), properties, { description: 'One page of the list.' });
}

/** `content` of a list answer of the document's version: its schema, and `items` as one page of it. */
export function listContent(options: OpenApiOptions, items: JsonObject, examples: readonly unknown[], flag = MORE_PAGES): JsonObject {
  const { shown } = options.versions;
  return { 'application/json': { schema: listSchema(shown, items, flag), example: pageIn(shown, examples) } };
}
