// Builds of the service as an operator installs them: the package layout inside node_modules, where
// bin/serve.js runs the compiled dist/ (no TypeScript stripping at run time, as in production).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH, ROOT } from './paths.js';

/** A build's migration count: the schema version its bin/migrate.js brings a database to. */
export function schemaVersionOf(sqlDir) {
  return readdirSync(sqlDir).filter((name) => /^\d+_.+\.sql$/.test(name)).length;
}

/** The checkout itself, run from its TypeScript sources (BENCH_OURS=sources). */
export function sourcesBuild() {
  return { serve: join(ROOT, 'bin/serve.js'), migrate: join(ROOT, 'bin/migrate.js'), schemaVersion: schemaVersionOf(join(ROOT, 'sql')), hasPostgres: true };
}

/**
 * Compiles the service at `source` (a checkout) with the checkout's tsc into
 * `<prefix>/node_modules/svc-http-sqlite` beside its bin/, sql/ and package.json; returns the build:
 * its bin/serve.js and bin/migrate.js, its schema version and whether it has the PostgreSQL engine.
 */
export function installBuild(source, prefix) {
  const modules = join(prefix, 'node_modules');
  const target = join(modules, 'svc-http-sqlite');
  mkdirSync(target, { recursive: true });
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  try {
    execFileSync(tsc, ['-p', join(source, 'tsconfig.build.json'), '--outDir', join(target, 'dist')], { cwd: source, stdio: 'pipe' });
  } catch (error) {
    // tsc emits even with type errors (another engineer's file mid-edit); a missing output is fatal below.
    process.stderr.write(`tsc reported errors while building the benchmark copy of ${source}:\n${error.stdout ?? ''}\n`);
  }
  for (const part of ['bin', 'sql', 'package.json']) cpSync(join(source, part), join(target, part), { recursive: true });
  // `pg` as a user installs it beside the package: the benchmark's own copy, the one the Fastify peer loads.
  if (!existsSync(join(modules, 'pg'))) symlinkSync(join(BENCH, 'node_modules/pg'), join(modules, 'pg'));
  return {
    serve: join(target, 'bin/serve.js'),
    migrate: join(target, 'bin/migrate.js'),
    schemaVersion: schemaVersionOf(join(target, 'sql')),
    hasPostgres: existsSync(join(target, 'sql/postgres')),
  };
}
