// The moving parts of a throwaway cluster: its folder, initdb, pg_ctl, settings, and psql as superuser.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asUser, clusterProcessIds, pickPort, programEnv, run, type ServerUser, serverUser, waitForExit } from './postgres-process.ts';

/** The login role, its password and the databases every cluster has: connection strings look real. */
export const CREDENTIALS = { role: 'svc', password: 'secret', database: 'svc', template: 'svc_template' } as const;

/** Where one cluster lives and how its programs run. */
export interface Layout {
  dir: string;
  dataDir: string;
  logFile: string;
  bindir: string;
  user: ServerUser | undefined;
  env: NodeJS.ProcessEnv;
}

/** How to start a cluster. */
export interface ServerSettings {
  /**
   * Keep fsync and full_page_writes on. Off by default: they only matter when the operating system
   * crashes, never when PostgreSQL or the service is killed, and they cost time. synchronous_commit
   * stays on either way, so a COMMIT is acknowledged only once its WAL is written.
   */
  fsync?: boolean;
  /** More postgresql.conf settings, e.g. `{ max_connections: '20' }`. */
  settings?: Record<string, string>;
}

/** A new temporary folder, owned by the server's user when we are root. */
export function makeLayout(bindir: string): Layout {
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  return { dir, dataDir: join(dir, 'data'), logFile: join(dir, 'postgres.log'), bindir, user, env: programEnv(dir) };
}

/** initdb's arguments: password logins over TCP (scram-sha-256), UTF-8, C locale, no sync. */
export function initdbArgs(layout: Layout): string[] {
  // The superuser has no password: it can log in only through the unix socket (trust), never over TCP.
  return ['-D', layout.dataDir, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256'].concat(
    ['-E', 'UTF8', '--no-locale', '--no-sync', '--no-instructions'],
  );
}

/** Runs a PostgreSQL program as the server's user. */
export function pgRun(layout: Layout, program: string, args: readonly string[]): Promise<string> {
  return run(program, asUser(layout.user, join(layout.bindir, program), args), { env: layout.env, cwd: layout.dir });
}

/** Runs pg_ctl synchronously (for an exit handler), when a server runs. */
export function pgCtlSync(layout: Layout, args: readonly string[]): void {
  if (!existsSync(join(layout.dataDir, 'postmaster.pid'))) return;
  const [program, fullArgs] = asUser(layout.user, join(layout.bindir, 'pg_ctl'), ['-D', layout.dataDir, '-w', '-t', '30', ...args]);
  spawnSync(program, fullArgs, { env: layout.env, cwd: layout.dir, stdio: 'ignore' });
}

function writeSettings(layout: Layout, port: number, options: ServerSettings): void {
  const durable = options.fsync === true ? 'on' : 'off';
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${layout.dir}'`,
    fsync: durable,
    full_page_writes: durable,
    synchronous_commit: 'on',
    ...options.settings,
  };
  const file = join(layout.dataDir, 'svc-test.conf');
  writeFileSync(file, Object.entries(settings).map(([name, value]) => `${name} = ${value}\n`).join(''));
  if (layout.user !== undefined) chownSync(file, layout.user.uid, layout.user.gid);
  const main = join(layout.dataDir, 'postgresql.conf');
  if (!readFileSync(main, 'utf8').includes("include 'svc-test.conf'")) appendFileSync(main, "include 'svc-test.conf'\n");
}

function startServer(layout: Layout): Promise<string> {
  return pgRun(layout, 'pg_ctl', ['-D', layout.dataDir, '-l', layout.logFile, '-w', '-t', '60', 'start']);
}

/** Starts the server on a free port; returns the port. */
// Another process may bind the port between our check and the server's bind: then try another one.
export async function startOnFreePort(layout: Layout, options: ServerSettings): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await pickPort();
    writeSettings(layout, port, options);
    try {
      await startServer(layout);
      return port;
    } catch (error) {
      const log = existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8') : '';
      if (attempt < 5 && log.includes('could not bind')) continue;
      throw new Error(`${(error as Error).message}\nserver log:\n${log.slice(-2000)}`);
    }
  }
}

/** Runs statements one by one (CREATE DATABASE cannot share a transaction) as the superuser over the unix socket. */
export function psql(layout: Layout, port: number, statements: readonly string[], database: string): Promise<string> {
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', layout.dir, '-p', String(port), '-U', 'postgres', '-d', database];
  for (const statement of statements) args.push('-c', statement);
  return run('psql', [join(layout.bindir, 'psql'), args], { env: layout.env, cwd: layout.dir }).then((out) => out.trim());
}

/**
 * Creates the login role, its database and the template that per-test databases are copied from.
 * The role may create databases, so a test process given only the URL makes fresh ones itself.
 */
export async function bootstrap(layout: Layout, port: number): Promise<void> {
  const { role, password, database, template } = CREDENTIALS;
  await psql(layout, port, [
    `CREATE ROLE ${role} LOGIN CREATEDB PASSWORD '${password}'`,
    // DROP DATABASE … WITH (FORCE) ends the sessions still in the database; an autovacuum worker has
    // no role, and a role without pg_signal_backend may not end it (42501 at a test's teardown).
    `GRANT pg_signal_backend TO ${role}`,
    `CREATE DATABASE ${database} OWNER ${role}`,
    `CREATE DATABASE ${template} OWNER ${role} IS_TEMPLATE true`,
  ], 'postgres');
}

/** What a cluster's server can be asked: stop and start again on the same port and data. */
export interface ServerControl {
  /** Stops the server, keeping its data and port: `fast` ends sessions cleanly, `immediate` is a crash (recovery at the next start). */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts the server again on the same port and data. */
  startServer(): Promise<void>;
  /** stopServer then startServer. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** The postmaster and its children now (empty while stopped). */
  processIds(): number[];
  /** The server log so far (helps when a test fails). */
  log(): string;
}

/** Stopping and starting the server of a cluster, and what runs of it. */
export function serverControl(layout: Layout): ServerControl {
  const control: ServerControl = {
    async stopServer(mode = 'fast') {
      const pids = control.processIds();
      await pgRun(layout, 'pg_ctl', ['-D', layout.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
      // pg_ctl's wait ends when postmaster.pid is gone, a moment before the postmaster itself.
      await waitForExit(pids);
    },
    startServer: async () => void (await startServer(layout)),
    async restart(mode = 'fast') {
      await control.stopServer(mode);
      await control.startServer();
    },
    processIds: () => clusterProcessIds(layout.dataDir),
    log: () => (existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8') : ''),
  };
  return control;
}
