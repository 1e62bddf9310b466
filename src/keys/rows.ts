import { nameOfScope, type Scope, scopeNamed } from '../callers/scopes.ts';
import type { ApiKey } from './model.ts';

/** The columns both engines' repositories select, in this order (rows come back as arrays). */
export const API_KEY_COLUMNS = ['seq', 'id', 'name', 'scopes', 'digest', 'created_at', 'expires_at', 'revoked_at', 'api_version', 'version'] as const;

/** Scopes as stored: their names, lowest first, separated by one space (`read write`). */
export function scopesText(scopes: readonly Scope[]): string {
  return scopes.map(nameOfScope).join(' ');
}

// Text that names no scope cannot be stored (the tables check it); dropping it here is only a guard.
function scopesFrom(text: string): Scope[] {
  return text
    .split(' ')
    .map((name) => scopeNamed(name))
    .filter((scope): scope is Scope => scope !== undefined)
    .sort((a, b) => a - b);
}

/** A key from a row in API_KEY_COLUMNS order; PostgreSQL's bigint seq may come as text. */
export function apiKeyFromRow(row: readonly unknown[]): ApiKey {
  return {
    seq: Number(row[0]),
    id: row[1] as string,
    name: row[2] as string,
    scopes: scopesFrom(row[3] as string),
    digest: row[4] as string,
    createdAt: row[5] as string,
    expiresAt: (row[6] ?? null) as string | null,
    revokedAt: (row[7] ?? null) as string | null,
    apiVersion: row[8] as string,
    version: Number(row[9]),
  };
}
