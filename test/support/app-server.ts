import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/log/logger.ts';
import { migratedDatabaseFile } from './server.ts';

/** An app built with createApp on a database the test holds, so the test can break it. */
export interface AppServer {
  url: string;
  db: DatabaseSync;
  dbPath: string;
  app: App;
  /** Every log line written so far, parsed (call app.logger.flush() first). */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Serves createApp over a plain node:http server on port 0 with a fresh migrated database file. */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const { dir, dbPath } = migratedDatabaseFile();
  const db = openDatabase(dbPath, { durability: 'normal' });
  const config = loadConfig({ SVC_DB_PATH: dbPath, ...env });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger(config.logLevel, (chunk) => {
    for (const line of chunk.split('\n')) if (line !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  const app = createApp({ db, config, logger });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    dbPath,
    app,
    logs,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (db.isOpen) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
