import type { Scope } from '../callers/scopes.ts';

/**
 * A stored API key: never its secret, only the SHA-256 of the whole key. `seq` orders keys for
 * keyset paging and is never reused; `id` is the public id the key itself carries.
 */
export interface ApiKey {
  seq: number;
  id: string;
  name: string;
  /** Lowest first (read, write, admin), no duplicates. */
  scopes: Scope[];
  /** base64url of the SHA-256 of the whole key. */
  digest: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** A validated create request. */
export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expiresAt: string | null;
}

/** A key just made: its record, and the key itself, which exists nowhere else and is shown once. */
export interface CreatedApiKey {
  apiKey: ApiKey;
  key: string;
}

/** The version a key's ETag is made from: 1, then 2 once revoked (a key changes only then). */
export function versionOf(apiKey: ApiKey): number {
  return apiKey.revokedAt === null ? 1 : 2;
}
