import type { ApiKey } from '../keys/model.ts';
import type { ApiKeyRepository } from '../keys/repository.ts';
import { API_KEY_COLUMNS, apiKeyFromRow, scopesText } from '../keys/rows.ts';
import type { SqlRunner } from './client.ts';
import { asNumber, isoText } from './sql.ts';

// The times are formatted by the server into the text SQLite stores (see isoText); a NULL stays NULL.
// Every insert of a key waits for this transaction-level lock before its seq is drawn, and holds it
// to its commit: keys then commit in the order of their seq, so a reader that has seen seq N has seen
// every key below N that will ever commit (identity values are drawn outside transactions, so without
// the lock a later seq could commit first and idsAfter would skip the earlier one for good).
// A fixed number of this service's own ('svc keys' in ASCII).
const INSERT_TURN = 0x737663206b657973n;
const INSERT = `WITH turn AS (SELECT pg_advisory_xact_lock(${INSERT_TURN}))
  INSERT INTO api_keys (id, name, scopes, digest, created_at, expires_at, api_version)
  SELECT $1, $2, $3, $4, $5::timestamptz, $6::timestamptz, $7 FROM turn RETURNING seq`;

const COLUMNS = API_KEY_COLUMNS.map((column) => (column.endsWith('_at') ? isoText(column) : column)).join(', ');

/** An ApiKeyRepository on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresApiKeyRepository(db: SqlRunner): ApiKeyRepository {
  const one = async (sql: string, id: string): Promise<ApiKey | undefined> => {
    const [row] = await db.rows(sql, [id]);
    return row === undefined ? undefined : apiKeyFromRow(row);
  };
  return {
    async insert(apiKey) {
      const [row] = await db.rows(INSERT, [
        apiKey.id, apiKey.name, scopesText(apiKey.scopes), apiKey.digest, apiKey.createdAt, apiKey.expiresAt, apiKey.apiVersion,
      ]);
      return { seq: asNumber(row?.[0]), ...apiKey, version: 1 };
    },
    findById: (id) => one(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, id),
    // The row lock holds until the transaction ends, so a precondition checked on it stays true.
    findForUpdate: (id) => one(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, id),
    async revoke(id, at) {
      await db.run('UPDATE api_keys SET revoked_at = $1, version = version + 1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    },
    async update(apiKey) {
      await db.run('UPDATE api_keys SET name = $1, api_version = $2, version = $3 WHERE id = $4', [apiKey.name, apiKey.apiVersion, apiKey.version, apiKey.id]);
    },
    async idsAfter(afterSeq) {
      const rows = await db.rows('SELECT seq, id FROM api_keys WHERE seq > $1 ORDER BY seq', [afterSeq]);
      return { ids: rows.map((row) => row[1] as string), lastSeq: rows.length === 0 ? afterSeq : asNumber(rows.at(-1)?.[0]) };
    },
    async listBefore(beforeSeq, limit) {
      const rows = await db.rows(`SELECT ${COLUMNS} FROM api_keys WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, [beforeSeq ?? Number.MAX_SAFE_INTEGER, limit]);
      return rows.map(apiKeyFromRow);
    },
  };
}
