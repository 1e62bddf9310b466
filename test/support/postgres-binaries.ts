import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The server programs a throwaway cluster needs (psql runs the harness's own SQL). */
export const REQUIRED_PROGRAMS = ['initdb', 'pg_ctl', 'postgres', 'psql'] as const;

/** The oldest PostgreSQL major version the service supports (the contract says 14 or newer). */
export const MIN_MAJOR = 14;

/** Where the PostgreSQL programs are, or why they could not be found. */
export type PostgresLookup = { found: true; bindir: string } | { found: false; reason: string };

/** Places searched when neither PG_BINDIR nor `pg_config` answers: Debian and Ubuntu keep each major version here. */
export const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * Finds the PostgreSQL programs: `PG_BINDIR` alone when it is set, else `pg_config --bindir`, else the
 * newest `<debianRoot>/<major>/bin` (Debian's `postgresql` package puts no server program on the PATH).
 */
export function findPostgres(env: NodeJS.ProcessEnv = process.env, debianRoot = DEBIAN_ROOT): PostgresLookup {
  const explicit = env['PG_BINDIR'];
  if (explicit !== undefined && explicit !== '') return checkBindir(explicit, 'PG_BINDIR');
  const fromPgConfig = pgConfigBindir(env);
  if (fromPgConfig !== undefined) {
    const lookup = checkBindir(fromPgConfig, '`pg_config --bindir`');
    if (lookup.found) return lookup;
  }
  const debian = newestDebianBindir(debianRoot);
  if (debian !== undefined) return checkBindir(debian, debianRoot);
  return { found: false, reason: `PG_BINDIR is not set, no \`pg_config\` on the PATH names them, and ${debianRoot}/<major>/bin does not exist` };
}

function checkBindir(bindir: string, source: string): PostgresLookup {
  const missing = REQUIRED_PROGRAMS.filter((program) => !existsSync(join(bindir, program)));
  if (missing.length > 0) return { found: false, reason: `${missing.join(', ')} not found in ${bindir} (from ${source})` };
  const major = serverMajor(bindir);
  if (major === undefined || major < MIN_MAJOR) {
    return { found: false, reason: `${join(bindir, 'postgres')} is not PostgreSQL ${MIN_MAJOR} or newer` };
  }
  return { found: true, bindir };
}

function pgConfigBindir(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const out = execFileSync('pg_config', ['--bindir'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.trim() || undefined;
  } catch {
    return undefined; // no pg_config on the PATH: not an error, the next place is tried
  }
}

function newestDebianBindir(root: string): string | undefined {
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'postgres')))
    .map(Number)
    .sort((a, b) => b - a);
  return majors[0] === undefined ? undefined : join(root, String(majors[0]), 'bin');
}

/** The major version `postgres --version` reports, e.g. 15 for "postgres (PostgreSQL) 15.18 (Debian …)". */
export function serverMajor(bindir: string): number | undefined {
  try {
    const out = execFileSync(join(bindir, 'postgres'), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /\(PostgreSQL\)\s+(\d+)/.exec(out);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** True when the environment says we run in CI (`CI=true`, as CI services and .ci/run set it). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env['CI'] ?? '').toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
}

/**
 * The value for node:test's `skip` option of a test that needs PostgreSQL: false when it can run here;
 * without PostgreSQL, a message naming what is missing and how to install it; under CI it throws
 * instead, so a CI machine without PostgreSQL fails rather than skipping in silence.
 */
export function skipWithoutPostgres(env: NodeJS.ProcessEnv = process.env, debianRoot = DEBIAN_ROOT): false | string {
  const lookup = findPostgres(env, debianRoot);
  if (lookup.found) return false;
  const message =
    `PostgreSQL ${MIN_MAJOR}+ server programs missing: ${lookup.reason}. ` +
    'Install them with `apt-get install postgresql` (Debian/Ubuntu; no service needs to run, tests start their own), ' +
    'or point PG_BINDIR at a folder holding initdb, pg_ctl, postgres and psql.';
  if (inCi(env)) throw new Error(`CI=true and ${message}`);
  return message;
}
