-- API keys (docs/security.md, API keys). The secret is never stored: `digest` is the SHA-256 of the whole key
-- (base64url), and `id` the public id the key itself carries, which lookups go by (UNIQUE: an index).
-- `seq` orders keys for keyset paging, newest first; with AUTOINCREMENT it is never reused.
-- `scopes` holds scope names, lowest first, one space apart. A key is never deleted: revoking sets
-- revoked_at, so the list keeps it and its id is never given again.
CREATE TABLE api_keys (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE CHECK (length(id) = 12 AND id NOT GLOB '*[^0-9A-Za-z]*'),
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  scopes     TEXT    NOT NULL CHECK (scopes IN ('read', 'write', 'admin', 'read write', 'read admin', 'write admin', 'read write admin')),
  digest     TEXT    NOT NULL CHECK (length(digest) = 43),
  created_at TEXT    NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
) STRICT;
