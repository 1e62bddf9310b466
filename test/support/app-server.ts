import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type App, type AppOptions, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, type Database } from '../../src/db/engine.ts';
import { capturingLogger } from './server.ts';
import { GADGETS, makeGadgetsTable } from './resources.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

/** An app built with createApp on a database the test holds, so the test can break it. */
export interface AppServer {
  url: string;
  /** The connection (SQLite) or pool (PostgreSQL) the app runs on. */
  db: Database;
  /** The database itself, for what a test does behind the app's back. */
  database: TestDatabase;
  app: App;
  /** Every log line written so far, parsed (call app.logger.flush() first). */
  logs: Record<string, unknown>[];
  /**
   * Closes the app's connection (SQLite) or ends its pool (PostgreSQL) under the running app, so
   * every later query fails with an error the app does not expect.
   */
  breakDatabase(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Serves createApp over a plain node:http server on port 0 with a fresh migrated database of the
 * run's engine; `options` may bring an embedding program's own credential check.
 */
export async function startAppServer(
  env: Record<string, string> = {},
  options: Pick<AppOptions, 'credentials' | 'resources' | 'versions'> & { prepare?: (database: TestDatabase) => Promise<void> } = {},
): Promise<AppServer> {
  const database = await createTestDatabase();
  if (options.resources?.some((resource) => resource.plural === GADGETS.plural) === true) await makeGadgetsTable(database);
  // What a test makes in the database before the app starts (the table of a resource of its own).
  await options.prepare?.(database);
  const db = database.open();
  const config = loadConfig({ ...database.env, ...env });
  const logs: Record<string, unknown>[] = [];
  const { prepare: _prepare, ...appOptions } = options;
  const app = createApp({ db, config, logger: capturingLogger(config, logs), ...appOptions });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    database,
    app,
    logs,
    breakDatabase: () => closeDatabase(db),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeDatabase(db);
      await database.drop();
    },
  };
}
