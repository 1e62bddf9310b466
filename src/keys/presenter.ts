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
  /** The version its requests get without Api-Version; added in 2026-11-28, so last (docs/decisions.md). */
  apiVersion: string;
};

/** The newest ApiKey representation: exactly these members, in this order (older versions: ctx.version.downgrade). */
export function presentApiKey(apiKey: ApiKey): ApiKeyView {
  return {
    id: apiKey.id,
    name: apiKey.name,
    scopes: apiKey.scopes.map(nameOfScope),
    createdAt: apiKey.createdAt,
    expiresAt: apiKey.expiresAt,
    revokedAt: apiKey.revokedAt,
    apiVersion: apiKey.apiVersion,
  };
}

/** The 201 of POST /api/keys: the ApiKey and, this once, the key itself. */
export function presentCreatedApiKey(apiKey: ApiKey, key: string): ApiKeyView & { key: string } {
  return { ...presentApiKey(apiKey), key };
}
