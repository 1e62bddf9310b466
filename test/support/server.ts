import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log/logger.ts';
import { type RunningServer, startServer } from '../../src/server.ts';

/** A server on port 0 with a fresh migrated database in a temporary folder. */
export interface TestServer extends RunningServer {
  dbPath: string;
  config: Config;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** A temporary folder with a migrated database file in it. */
export function migratedDatabaseFile(): { dir: string; dbPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const dbPath = join(dir, 'app.db');
  const db = openDatabase(dbPath, { create: true });
  migrate(db);
  db.close();
  return { dir, dbPath };
}

/** Starts the real server with `env` on top of test defaults (port 0, normal durability, logs captured). */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const { dir, dbPath } = migratedDatabaseFile();
  const config = loadConfig({ SVC_PORT: '0', SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'normal', ...env });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger(config.logLevel, (chunk) => {
    for (const line of chunk.split('\n')) if (line !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  const running = await startServer(config, { logger });
  return {
    ...running,
    dbPath,
    config,
    logs,
    async stop() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
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
