-- PostgreSQL: products, workspaces and stored idempotent responses, as sql/001_init.sql is for
-- SQLite. The two folders are numbered alike: schema version N means the same tables on both.
-- Identity columns come from a sequence, which never hands out a number twice.
CREATE TABLE products (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name           text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  price_in_cents integer     NOT NULL CHECK (price_in_cents BETWEEN 0 AND 2147483647),
  status         smallint    NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
  created_at     timestamptz NOT NULL
);

CREATE TABLE workspaces (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);

-- Stored responses of POSTs sent with an Idempotency-Key (README: Idempotent creates). A key is
-- scoped to the method and path it was used on; expires_at is in epoch milliseconds.
CREATE TABLE idempotency_keys (
  scope       text     NOT NULL,
  key         text     NOT NULL,
  fingerprint text     NOT NULL,
  status      smallint NOT NULL,
  location    text,
  body        text     NOT NULL,
  expires_at  bigint   NOT NULL,
  PRIMARY KEY (scope, key)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
