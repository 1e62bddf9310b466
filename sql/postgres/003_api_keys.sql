-- API keys, as sql/003_api_keys.sql is for SQLite: the public id (UNIQUE: lookups are an index
-- scan), the SHA-256 of the whole key (base64url), never the secret; `seq` for keyset paging,
-- from an identity column, so never reused; scope names lowest first, one space apart.
CREATE TABLE api_keys (
  seq        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id         text        NOT NULL UNIQUE CHECK (id ~ '^[0-9A-Za-z]{12}$'),
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  scopes     text        NOT NULL CHECK (scopes IN ('read', 'write', 'admin', 'read write', 'read admin', 'write admin', 'read write admin')),
  digest     text        NOT NULL CHECK (char_length(digest) = 43),
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz
);
