import type { ApiKey } from './model.ts';

/** Storage of API keys; each engine implements it in its own file, the only code that knows their SQL. */
export interface ApiKeyRepository {
  /** Stores a new key; the database assigns a `seq` never used before. */
  insert(apiKey: Omit<ApiKey, 'seq'>): Promise<ApiKey>;
  findById(id: string): Promise<ApiKey | undefined>;
  /** In a write transaction: reads the key and keeps other transactions from changing it until this one ends. */
  findForUpdate(id: string): Promise<ApiKey | undefined>;
  /** Sets `revokedAt` of the key with this id, unless it was revoked already. */
  revoke(id: string, at: string): Promise<void>;
  /** Up to `limit` keys with `seq` below `beforeSeq` (all when null), newest first. */
  listBefore(beforeSeq: number | null, limit: number): Promise<ApiKey[]>;
}
