import { nameOfScope, type ScopeName } from '../callers/scopes.ts';
import type { ApiKey } from './model.ts';

/** The ApiKey representation (docs/security.md, API keys); never the digest, never the key. */
export type ApiKeyView = {
  id: string;
  name: string;
  /** Lowest first: read, write, admin. */
  scopes: ScopeName[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
};

/** The ApiKey representation: exactly these members, in this order. */
export function presentApiKey(apiKey: ApiKey): ApiKeyView {
  return {
    id: apiKey.id,
    name: apiKey.name,
    scopes: apiKey.scopes.map(nameOfScope),
    createdAt: apiKey.createdAt,
    expiresAt: apiKey.expiresAt,
    revokedAt: apiKey.revokedAt,
  };
}

/** The 201 of POST /api/keys: the ApiKey and, this once, the key itself. */
export function presentCreatedApiKey(apiKey: ApiKey, key: string): ApiKeyView & { key: string } {
  return { ...presentApiKey(apiKey), key };
}
