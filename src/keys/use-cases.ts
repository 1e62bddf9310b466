import type { Repositories } from '../db/storage.ts';
import type { ChangeOutcome, Precondition } from '../shared/changes.ts';
import type { Page, PageRequest } from '../shared/paging.ts';
import { generateKey, keyDigest } from './format.ts';
import type { ApiKey, ApiKeyPatch, CreatedApiKey, NewApiKey } from './model.ts';
import type { ApiKeyRepository } from './repository.ts';

/** What a revocation did: the key as it now is, or why nothing happened. */
export type RevokeOutcome = { kind: 'revoked'; apiKey: ApiKey } | { kind: 'not_found' } | { kind: 'precondition_failed' };

/** The rules for API keys, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface ApiKeyUseCases {
  /** Makes a key from node:crypto's random bytes and stores its digest, never the key. */
  create(tx: Repositories, input: NewApiKey): Promise<CreatedApiKey>;
  get(id: string): Promise<ApiKey | undefined>;
  list(request: PageRequest): Promise<Page<ApiKey>>;
  /** Renames a key or moves it to another API version; a patch that changes nothing writes nothing and keeps its version. */
  change(tx: Repositories, id: string, patch: ApiKeyPatch, precondition: Precondition): Promise<ChangeOutcome<ApiKey>>;
  /** Revokes the key; a key revoked already stays as it was (the first revocation's time). */
  revoke(tx: Repositories, id: string, precondition: Precondition): Promise<RevokeOutcome>;
  /** The clock of createdAt and revokedAt, which also judges whether an expiry lies in the future. */
  now(): Date;
}

/** `keys` serves reads outside transactions; `now` is the clock. */
export function createApiKeyUseCases(keys: ApiKeyRepository, now: () => Date = () => new Date()): ApiKeyUseCases {
  return {
    async create(tx, input) {
      const { id, key } = generateKey();
      const digest = keyDigest(key).toString('base64url');
      const apiKey = await tx.keys.insert({ id, ...input, digest, createdAt: now().toISOString(), revokedAt: null });
      return { apiKey, key };
    },
    get: (id) => keys.findById(id),
    async list(request) {
      // One row more than asked tells whether another page exists, without a COUNT.
      const rows = await keys.listBefore(request.beforeId, request.limit + 1);
      const items = rows.slice(0, request.limit);
      return { items, nextBeforeId: rows.length > request.limit ? (items.at(-1)?.seq ?? null) : null };
    },
    // A revoked or expired key may be renamed or moved too: it stays refused, and its record stays true.
    async change(tx, id, patch, precondition) {
      const current = await tx.keys.findForUpdate(id);
      if (current === undefined) return { kind: 'not_found' };
      if (!precondition(current.version)) return { kind: 'precondition_failed' };
      const next: ApiKey = { ...current, ...patch };
      if (next.name === current.name && next.apiVersion === current.apiVersion) return { kind: 'unchanged', resource: current };
      const changed: ApiKey = { ...next, version: current.version + 1 };
      await tx.keys.update(changed);
      return { kind: 'changed', resource: changed };
    },
    async revoke(tx, id, precondition) {
      const current = await tx.keys.findForUpdate(id);
      if (current === undefined) return { kind: 'not_found' };
      if (!precondition(current.version)) return { kind: 'precondition_failed' };
      if (current.revokedAt !== null) return { kind: 'revoked', apiKey: current };
      const revokedAt = now().toISOString();
      await tx.keys.revoke(id, revokedAt);
      return { kind: 'revoked', apiKey: { ...current, revokedAt, version: current.version + 1 } };
    },
    now,
  };
}
