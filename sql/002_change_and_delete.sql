-- Changes and deletes (PATCH, DELETE, ETags). Rebuilds both tables, because SQLite can only add
-- AUTOINCREMENT by creating the table anew:
-- * AUTOINCREMENT: ids are never reused. Without it SQLite hands out max(rowid)+1, so deleting the
--   newest row would give its id to the next insert. Copying rows with their ids sets the sequence.
-- * updated_at: equal to created_at until the first change (rows carried over get their created_at).
-- * version: 1 on insert, +1 on every change; the ETag is made from it.
-- * (status, id) index: keyset pages of one status (`WHERE status = ? AND id < ? ORDER BY id DESC`)
--   are an index search, as deep pages of the whole table are a primary-key search.
CREATE TABLE products_v2 (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  name           TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  price_in_cents INTEGER NOT NULL CHECK (price_in_cents BETWEEN 0 AND 2147483647),
  status         INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
  created_at     TEXT    NOT NULL,
  updated_at     TEXT    NOT NULL,
  version        INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1)
) STRICT;
INSERT INTO products_v2 (id, name, price_in_cents, status, created_at, updated_at, version)
  SELECT id, name, price_in_cents, status, created_at, created_at, 1 FROM products ORDER BY id;
DROP TABLE products;
ALTER TABLE products_v2 RENAME TO products;
CREATE INDEX products_status_id ON products (status, id);

CREATE TABLE workspaces_v2 (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at TEXT    NOT NULL,
  updated_at TEXT    NOT NULL,
  version    INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1)
) STRICT;
INSERT INTO workspaces_v2 (id, name, created_at, updated_at, version)
  SELECT id, name, created_at, created_at, 1 FROM workspaces ORDER BY id;
DROP TABLE workspaces;
ALTER TABLE workspaces_v2 RENAME TO workspaces;

-- A replayed 201 carries the ETag it was first sent with. A 201 stored before this migration is
-- brought to what the same create answers now: its resource is at version 1 (so ETag "1"), and
-- its body gains updatedAt, equal to createdAt, as the last member.
ALTER TABLE idempotency_keys ADD COLUMN etag TEXT;
UPDATE idempotency_keys
   SET etag = '"1"', body = json_set(body, '$.updatedAt', json_extract(body, '$.createdAt'))
 WHERE status = 201 AND json_valid(body) AND json_extract(body, '$.createdAt') IS NOT NULL;
