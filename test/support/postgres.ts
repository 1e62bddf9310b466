// A real, throwaway PostgreSQL for tests. Each test file that needs one starts its own cluster, so a
// test may stop and restart its server without disturbing other files; node:test has no global setup
// on Node 22.18 (`--test-global-setup` is a bad option there) to share one anyway. Measured on the
// shared 2-core machine: startPostgres 3.0-4.2 s (initdb 1.7-2.3 s of it), createDatabase 0.1-0.4 s,
// restart 0.25-0.4 s, stop 0.2 s. Copying a cached initdb (39 MB) took 1 s, so there is no cache.
// Nothing outlives the test process: stop() removes everything; a normal exit (or process.exit, or an
// uncaught error) stops the server synchronously; a process killed by a signal, even SIGKILL, leaves a
// watchdog (a shell in its own session reading a pipe from us) that sees the pipe close and does it.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgres } from './postgres-binaries.ts';
import { programEnv, run, startWatchdog } from './postgres-process.ts';
import { bootstrap, CREDENTIALS, initdbArgs, type Layout, makeLayout, pgCtlSync, pgRun, psql, type ServerControl, serverControl, type ServerSettings, startOnFreePort } from './postgres-server.ts';

export { skipWithoutPostgres } from './postgres-binaries.ts';
export { CREDENTIALS, type ServerSettings as PostgresOptions } from './postgres-server.ts';

/** A running throwaway cluster on 127.0.0.1. */
export interface PostgresCluster extends ServerControl {
  readonly port: number;
  /** The temporary folder: data/, the server log and the unix socket. */
  readonly dir: string;
  readonly dataDir: string;
  /** `postgres://svc:secret@127.0.0.1:PORT/svc`: the role `svc` owns the database `svc`. */
  readonly url: string;
  /** The same credentials and server, another database. */
  urlFor(database: string): string;
  /**
   * A new database copied from `svc_template` (owned by svc); its URL. To give every test file's
   * database a schema, fill the template first, and keep no connection to it open while copying.
   */
  createDatabase(name?: string): Promise<string>;
  /** Runs statements one by one as the superuser over the unix socket; psql's unaligned output. */
  sql(statements: string | readonly string[], database?: string): Promise<string>;
  /** Stops the server for good and removes the folder. */
  stop(): Promise<void>;
}

/** Starts a throwaway cluster; throws when PostgreSQL is missing (guard tests with `skipWithoutPostgres()`). */
export async function startPostgres(options: ServerSettings = {}): Promise<PostgresCluster> {
  const lookup = findPostgres();
  if (!lookup.found) throw new Error(`PostgreSQL is missing: ${lookup.reason}`);
  const layout = makeLayout(lookup.bindir);
  const watchdog = startWatchdog(layout.dataDir, layout.dir);
  const onExit = () => {
    pgCtlSync(layout, ['stop', '-m', 'immediate']);
    rmSync(layout.dir, { recursive: true, force: true });
  };
  const forget = () => {
    process.off('exit', onExit);
    watchdog.release();
  };
  process.once('exit', onExit);
  try {
    await pgRun(layout, 'initdb', initdbArgs(layout));
    const port = await startOnFreePort(layout, options);
    await bootstrap(layout, port);
    return cluster(layout, port, () => {
      rmSync(layout.dir, { recursive: true, force: true });
      forget();
    });
  } catch (error) {
    onExit();
    forget();
    throw error;
  }
}

function cluster(layout: Layout, port: number, remove: () => void): PostgresCluster {
  const { role, password, database, template } = CREDENTIALS;
  const urlFor = (name: string) => `postgres://${role}:${password}@127.0.0.1:${port}/${name}`;
  const control = serverControl(layout);
  let created = 0;
  let stopped = false;
  return {
    ...control,
    port,
    dir: layout.dir,
    dataDir: layout.dataDir,
    url: urlFor(database),
    urlFor,
    async createDatabase(name = `svc_test_${++created}`) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await psql(layout, port, [`CREATE DATABASE ${name} TEMPLATE ${template} OWNER ${role}`], 'postgres');
      return urlFor(name);
    },
    sql: (statements, name = database) => psql(layout, port, typeof statements === 'string' ? [statements] : statements, name),
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (control.processIds().length > 0) await control.stopServer('fast');
      } finally {
        remove();
      }
    },
  };
}

/** Runs statements over TCP as the URL's role, with psql as the client (the service has no client dependency). */
export function psqlAt(url: string, statements: string | readonly string[]): Promise<string> {
  const lookup = findPostgres();
  if (!lookup.found) return Promise.reject(new Error(`PostgreSQL is missing: ${lookup.reason}`));
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url];
  for (const statement of typeof statements === 'string' ? [statements] : statements) args.push('-c', statement);
  return run('psql', [join(lookup.bindir, 'psql'), args], { env: programEnv(tmpdir()), cwd: tmpdir() }).then((out) => out.trim());
}
