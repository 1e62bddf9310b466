import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { GADGETS, makeGadgetsTable } from './resources.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

/** A server on port 0 with a fresh migrated database of the run's engine (test-engine.ts). */
export interface TestServer extends RunningServer {
  /** The database it serves, for what a test does behind its back (count rows, fake a schema version). */
  database: TestDatabase;
  /** The SQLite file; throws on PostgreSQL, so a SQLite-only check cannot pass there by reading nothing. */
  readonly dbPath: string;
  config: Config;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** Stops the server and removes its database. */
  stop(): Promise<void>;
}

/** A temporary folder with a migrated SQLite database file in it. */
export function migratedDatabaseFile(): { dir: string; dbPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const dbPath = join(dir, 'app.db');
  const db = openDatabase(dbPath, { create: true });
  migrate(db);
  db.close();
  return { dir, dbPath };
}

/** Parses every log line the logger writes into `logs`. */
export function capturingLogger(config: Config, logs: Record<string, unknown>[]): ReturnType<typeof createLogger> {
  return createLogger(config.logLevel, (chunk) => {
    for (const line of chunk.split('\n')) if (line !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
  });
}

/** What a test server serves besides the defaults: `resources` (the service's by default; ALL_RESOURCES adds the test resource, whose table it makes). */
export interface TestServerOptions {
  resources?: readonly Resource[];
}

/** Starts the real server with `env` on top of test defaults (port 0, normal durability, logs captured). */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const logs: Record<string, unknown>[] = [];
  let config: Config;
  let running: RunningServer;
  try {
    if (options.resources?.some((resource) => resource.plural === GADGETS.plural) === true) await makeGadgetsTable(database);
    config = loadConfig({ SVC_PORT: '0', SVC_DB_DURABILITY: 'normal', ...database.env, ...env });
    // The server opens the database itself, as bin/serve.js does (schema check included).
    running = await startServer(config, { logger: capturingLogger(config, logs), ...(options.resources === undefined ? {} : { resources: options.resources }) });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...running,
    database,
    get dbPath(): string {
      if (database.path === undefined) throw new Error('dbPath is SQLite only; use server.database');
      return database.path;
    },
    config,
    logs,
    async stop() {
      await running.close();
      await database.drop();
    },
  };
}

/** POSTs a JSON value (or raw text) with the JSON media type. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** PATCHes a merge patch (or raw text) as `application/merge-patch+json` unless `content-type` is given. */
export function patchJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
