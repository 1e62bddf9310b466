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
  /** The API version its requests get when they name none (docs/security.md, A key's API version). */
  apiVersion: string;
  /** What its entity tag is made from: 1 when made, one more with every change (a patch, the revocation). */
  version: number;
}

/** A key as it is first stored: the database gives it its `seq`, and it starts at version 1. */
export type NewStoredKey = Omit<ApiKey, 'seq' | 'version'>;

/** A validated create request. */
export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expiresAt: string | null;
  apiVersion: string;
}

/** A validated merge patch of a key: the members to replace. */
export type ApiKeyPatch = Partial<Pick<ApiKey, 'name' | 'apiVersion'>>;

/** A key just made: its record, and the key itself, which exists nowhere else and is shown once. */
export interface CreatedApiKey {
  apiKey: ApiKey;
  key: string;
}
