import type { ApiKey, NewStoredKey } from './model.ts';

/** Public ids of keys, oldest first, and the highest `seq` among them (the one asked after when none). */
export interface KeyIdsAfter {
  ids: string[];
  lastSeq: number;
}

/** Storage of API keys; each engine implements it in its own file, the only code that knows their SQL. */
export interface ApiKeyRepository {
  /** Stores a new key at version 1; the database assigns a `seq` never used before. */
  insert(apiKey: NewStoredKey): Promise<ApiKey>;
  findById(id: string): Promise<ApiKey | undefined>;
  /** In a write transaction: reads the key and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: string): Promise<ApiKey | undefined>;
  /** Sets `revokedAt` of the key with this id and moves its version on, unless it was revoked already. */
  revoke(id: string, at: string): Promise<void>;
  /** Writes the changeable members of `apiKey` (name, apiVersion) and its version, by its id. */
  update(apiKey: ApiKey): Promise<void>;
  /**
   * The ids of every key with `seq` above `afterSeq`, by seq: what the key check's set of ids is kept
   * current with. Keys commit in the order of their seq (each engine makes sure), so a key not seen
   * yet always has a seq above the highest one seen.
   */
  idsAfter(afterSeq: number): Promise<KeyIdsAfter>;
  /** Up to `limit` keys with `seq` below `beforeSeq` (all when null), newest first. */
  listBefore(beforeSeq: number | null, limit: number): Promise<ApiKey[]>;
}
