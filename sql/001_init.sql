-- Products and workspaces. Ids are INTEGER PRIMARY KEY (the rowid), so keyset
-- paging newest-first (`WHERE id < ? ORDER BY id DESC`) walks the table's own
-- b-tree and needs no extra index.
CREATE TABLE products (
  id             INTEGER PRIMARY KEY,
  name           TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  price_in_cents INTEGER NOT NULL CHECK (price_in_cents BETWEEN 0 AND 2147483647),
  status         INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
  created_at     TEXT    NOT NULL
) STRICT;

CREATE TABLE workspaces (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at TEXT    NOT NULL
) STRICT;

-- Stored responses of POSTs sent with an Idempotency-Key (README: Idempotent creates). A key is
-- scoped to the method and path it was used on.
CREATE TABLE idempotency_keys (
  scope        TEXT    NOT NULL,
  key          TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  status       INTEGER NOT NULL,
  location     TEXT,
  body         TEXT    NOT NULL,
  expires_at   INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) STRICT, WITHOUT ROWID;

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
