import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../src/sqlite/database.ts';
import type { Database } from '../../src/db/engine.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { PostgresClient } from '../../src/postgres/client.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { MIGRATED_TEMPLATE } from './postgres-template.ts';
import { clusterUrl, TEST_ENGINE, type TestEngine } from './test-engine.ts';

/** A fresh, migrated database of the run's engine, and what tests do to it behind the service's back. */
export interface TestDatabase {
  readonly engine: TestEngine;
  /** The variables that point the service at it: SVC_DB_PATH, or SVC_DATABASE_URL. */
  readonly env: Record<string, string>;
  /** The SQLite file; undefined on PostgreSQL. */
  readonly path: string | undefined;
  /** Strings that name where it lives (file path; URL, database name, port): no response may show one. */
  readonly names: readonly string[];
  /** A new connection (SQLite) or pool (PostgreSQL) on it, as createApp takes it; the caller closes it. */
  open(): Database;
  /** Runs one statement (no parameters) on a connection of the test's own; its rows as arrays. */
  sql(statement: string): Promise<unknown[][]>;
  /** The number of rows of `table` (matching `where`, an SQL condition both engines read alike). */
  countRows(table: string, where?: string): Promise<number>;
  /** Makes the database report schema version `version`, as a database migrated that far (or further) would. */
  setSchemaVersion(version: number): Promise<void>;
  /** Removes the database; connections the test opened with open() must be closed first. */
  drop(): Promise<void>;
}

/** Which database createTestDatabase makes. */
export interface TestDatabaseOptions {
  /** The run's engine unless given. */
  engine?: TestEngine;
  /** False: left empty, for a test that migrates it itself (true by default). */
  migrated?: boolean;
}

/**
 * A migrated SQLite file in a temporary folder, or a database on the run's PostgreSQL cluster copied
 * from MIGRATED_TEMPLATE (or, not migrated, from the empty svc_template).
 */
export function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  return (options.engine ?? TEST_ENGINE) === 'postgres' ? createPostgresDatabase(migrated) : Promise.resolve(createSqliteDatabase(migrated));
}

function countSql(table: string, where: string | undefined): string {
  return `SELECT count(*) FROM ${table}${where === undefined ? '' : ` WHERE ${where}`}`;
}

function createSqliteDatabase(migrated: boolean): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const path = join(dir, 'app.db');
  const setup = openDatabase(path, { create: true });
  if (migrated) migrate(setup);
  setup.close();
  const sql = async (statement: string): Promise<unknown[][]> => {
    const db = new DatabaseSync(path);
    try {
      const prepared = db.prepare(statement);
      prepared.setReturnArrays(true);
      return prepared.all() as unknown as unknown[][];
    } finally {
      db.close();
    }
  };
  return {
    engine: 'sqlite',
    env: { SVC_DB_PATH: path },
    path,
    names: [path, dir],
    open: () => openDatabase(path, { durability: 'normal' }),
    sql,
    countRows: async (table, where) => Number((await sql(countSql(table, where)))[0]?.[0]),
    setSchemaVersion: async (version) => void (await sql(`PRAGMA user_version = ${version}`)),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

let created = 0;

// Runs statements that may not share a transaction (CREATE/DROP DATABASE) on the cluster's `svc` database.
async function onCluster(statement: string): Promise<void> {
  const admin = openPostgres(clusterUrl(), { poolSize: 1 });
  try {
    await admin.script(statement);
  } finally {
    await admin.end();
  }
}

async function createPostgresDatabase(migrated: boolean): Promise<TestDatabase> {
  // Unique across the test processes sharing the cluster.
  const name = `svc_t${process.pid}_${++created}`;
  await onCluster(`CREATE DATABASE ${name} TEMPLATE ${migrated ? MIGRATED_TEMPLATE : 'svc_template'}`);
  const url = new URL(clusterUrl());
  url.pathname = `/${name}`;
  // The test's own pool, for what tests do behind the service's back.
  const own: PostgresClient = openPostgres(url.href, { poolSize: 2 });
  const sql = (statement: string): Promise<unknown[][]> => own.rows(statement);
  return {
    engine: 'postgres',
    env: { SVC_DATABASE_URL: url.href },
    path: undefined,
    names: [url.href, name, `:${url.port}`],
    open: () => openPostgres(url.href),
    sql,
    countRows: async (table, where) => Number((await sql(countSql(table, where)))[0]?.[0]),
    async setSchemaVersion(version) {
      // The version is the highest number recorded.
      await own.transaction(async (tx) => {
        await tx.run('DELETE FROM schema_migrations');
        if (version > 0) await tx.run("INSERT INTO schema_migrations (version, file) VALUES ($1, 'set by a test')", [version]);
      });
    },
    async drop() {
      await own.end();
      await onCluster(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
