// What the shared HTTP tests send to a resource, derived from its description (resources.ts): a
// create of its n-th valid body, a change its own rules accept, its event types, and servers that
// serve a given list of resources. No resource is named here, so a resource added later is covered.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { ApiKeyRequest } from '../../src/api-keys.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { bearer, type KeysServer, makeKey, type MadeKey } from './keys.ts';
import { toNewest, validBody } from './resources.ts';
import { postJson, startTestServer } from './server.ts';

export type Json = Record<string, unknown>;

/** A resource as the 201 answered it: its id, its path (the Location), its ETag and its representation. */
export interface Made {
  id: number;
  path: string;
  etag: string;
  body: Json;
}

/** POSTs `body` (the n-th valid body of `resource` by default) to the server at `base`; asserts the 201. */
export async function createAt(base: string, resource: Resource, n = 0, headers: Record<string, string> = {}, body: Json = validBody(resource, n)): Promise<Made> {
  const response = await postJson(`${base}${resource.path}`, body, headers);
  assert.equal(response.status, 201, `${resource.plural}: ${await response.clone().text()}`);
  const made = (await response.json()) as Json;
  const path = response.headers.get('location') ?? '';
  assert.equal(path, `${resource.path}/${String(made['id'])}`);
  return { id: made['id'] as number, path, etag: response.headers.get('etag') ?? '', body: made };
}

/**
 * A merge patch of every field, from the n-th valid body on, that no rule of the resource refuses
 * and that changes as many fields of `current` as such a patch can (an archived product may not be
 * renamed, nor an active one archived and renamed at once): at least one.
 */
export function changeOf(resource: Resource, current: Json, n = 1): Json {
  let best: { patch: Json; changed: number } | undefined;
  for (let k = n; k < n + 24; k++) {
    const patch = validBody(resource, k);
    const changed = Object.keys(patch).filter((field) => !isDeepStrictEqual(patch[field], current[field])).length;
    const refused = resource.rules.some((rule) => rule.breaks(toNewest(resource, current) as never, toNewest(resource, { ...current, ...patch }) as never));
    if (!refused && changed > (best?.changed ?? 0)) best = { patch, changed };
  }
  if (best === undefined) throw new Error(`${resource.plural}: no valid body from the ${n}-th changes ${JSON.stringify(current)}`);
  return best.patch;
}

/** A merge patch of one field, the first it can be, to another value that no rule of the resource refuses. */
export function oneFieldChange(resource: Resource, current: Json, n = 1): Json {
  for (const field of Object.keys(validBody(resource))) {
    for (let k = n; k < n + 24; k++) {
      const value = validBody(resource, k)[field];
      const refused = resource.rules.some((rule) => rule.breaks(toNewest(resource, current) as never, toNewest(resource, { ...current, [field]: value }) as never));
      if (!refused && !isDeepStrictEqual(value, current[field])) return { [field]: value };
    }
  }
  throw new Error(`${resource.plural}: no one-field change of ${JSON.stringify(current)}`);
}

/** The three event types of `resource`, in the order created, updated, deleted. */
export function eventTypesOf(resource: Resource): [created: string, updated: string, deleted: string] {
  return [`${resource.singular}.created`, `${resource.singular}.updated`, `${resource.singular}.deleted`];
}

/** The table of `resource` (its plural: its migrations name it so). */
export const tableOf = (resource: Resource): string => resource.plural;

/** startKeysServer (keys.ts) serving `resources`: SVC_AUTH=keys, and the first admin key made before any request. */
export async function startKeysServerServing(resources: readonly Resource[], env: Record<string, string> = {}): Promise<KeysServer> {
  const server = await startTestServer({ SVC_AUTH: 'keys', ...env }, { resources });
  try {
    const admin = await makeKey(server.database, { name: 'first admin', scopes: ['admin'] });
    const newKey = async (request: ApiKeyRequest): Promise<MadeKey> => {
      const response = await postJson(`${server.url}/api/keys`, request, bearer(admin.key));
      if (response.status !== 201) throw new Error(`POST /api/keys answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as MadeKey;
    };
    return Object.assign(server, { admin, newKey });
  } catch (error) {
    await server.stop();
    throw error;
  }
}
