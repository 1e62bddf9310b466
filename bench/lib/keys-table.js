// The `api_keys` table of migration 003 (API keys), for databases migrated by a build that predates it:
// only then does the benchmark create it itself, so the peers' key rows run on any build. A build
// that has migration 003 makes the table with its own migrations, and this copy is not used.

/** Migration 003 on SQLite (sql/003_api_keys.sql of the API-keys change), as it was written. */
export const SQLITE_KEYS_TABLE = `CREATE TABLE api_keys (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE CHECK (length(id) = 12 AND id NOT GLOB '*[^0-9A-Za-z]*'),
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  scopes     TEXT    NOT NULL CHECK (scopes IN ('read', 'write', 'admin', 'read write', 'read admin', 'write admin', 'read write admin')),
  digest     TEXT    NOT NULL CHECK (length(digest) = 43),
  created_at TEXT    NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
) STRICT`;

/** Migration 003 on PostgreSQL (sql/postgres/003_api_keys.sql), as it was written. */
export const POSTGRES_KEYS_TABLE = `CREATE TABLE api_keys (
  seq        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id         text        NOT NULL UNIQUE CHECK (id ~ '^[0-9A-Za-z]{12}$'),
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  scopes     text        NOT NULL CHECK (scopes IN ('read', 'write', 'admin', 'read write', 'read admin', 'write admin', 'read write admin')),
  digest     text        NOT NULL CHECK (char_length(digest) = 43),
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz
)`;
