-- Changes and deletes, as sql/002_change_and_delete.sql is for SQLite: updated_at (equal to
-- created_at until the first change), version (the ETag: 1 on insert, +1 per change), a (status, id)
-- index for keyset pages of one status, and the ETag of a stored 201. Ids are identity columns,
-- so they were never reused and need no change.
ALTER TABLE products ADD COLUMN updated_at timestamptz;
UPDATE products SET updated_at = created_at;
ALTER TABLE products ALTER COLUMN updated_at SET NOT NULL;
ALTER TABLE products ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE INDEX products_status_id ON products (status, id);

ALTER TABLE workspaces ADD COLUMN updated_at timestamptz;
UPDATE workspaces SET updated_at = created_at;
ALTER TABLE workspaces ALTER COLUMN updated_at SET NOT NULL;
ALTER TABLE workspaces ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

-- No stored 201 needs rewriting here, unlike in sql/002: 001 and 002 for PostgreSQL shipped together.
ALTER TABLE idempotency_keys ADD COLUMN etag text;
