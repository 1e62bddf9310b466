import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import type { ApiKey } from '../keys/model.ts';
import type { ApiKeyRepository } from '../keys/repository.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, scopesText } from '../keys/rows.ts';
import { BOUND_LIMIT } from './limit.ts';

const COLUMNS = API_KEY_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

/** An ApiKeyRepository on node:sqlite; statements are prepared once. */
export function createSqliteApiKeyRepository(db: DatabaseSync): ApiKeyRepository {
  const insert = db.prepare('INSERT INTO api_keys (id, name, scopes, digest, created_at, expires_at, api_version) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ?, version = version + 1 WHERE id = ? AND revoked_at IS NULL');
  const update = db.prepare('UPDATE api_keys SET name = ?, api_version = ?, version = ? WHERE id = ?');
  const byId = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
  const page = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE seq < ? ORDER BY seq DESC ${BOUND_LIMIT}`);
  // One writer at a time, from its seq to its commit: keys commit in the order of their seq.
  const idsAfter = db.prepare('SELECT seq, id FROM api_keys WHERE seq > ? ORDER BY seq');
  byId.setReturnArrays(true);
  idsAfter.setReturnArrays(true);
  page.setReturnArrays(true);
  const findById = async (id: string): Promise<ApiKey | undefined> => {
    const row = byId.get(id) as Row | undefined;
    return row === undefined ? undefined : apiKeyFromRow(row);
  };
  return {
    async insert(apiKey) {
      const result = insert.run(apiKey.id, apiKey.name, scopesText(apiKey.scopes), apiKey.digest, apiKey.createdAt, apiKey.expiresAt, apiKey.apiVersion);
      return { seq: Number(result.lastInsertRowid), ...apiKey, version: 1 };
    },
    findById,
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    findForUpdate: findById,
    async revoke(id, at) {
      revoke.run(at, id);
    },
    async update(apiKey) {
      update.run(apiKey.name, apiKey.apiVersion, apiKey.version, apiKey.id);
    },
    async idsAfter(afterSeq) {
      const rows = idsAfter.all(afterSeq) as unknown as Row[];
      return { ids: rows.map((row) => row[1] as string), lastSeq: rows.length === 0 ? afterSeq : Number(rows.at(-1)?.[0]) };
    },
    async listBefore(beforeSeq, limit) {
      const rows = page.all(beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as unknown as Row[];
      return rows.map(apiKeyFromRow);
    },
  };
}
