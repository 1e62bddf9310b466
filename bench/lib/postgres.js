// The benchmark's PostgreSQL: a throwaway cluster from the tests' harness (test/support/postgres.ts),
// durable, pinned to CPU 0 beside the load generator (CPU 1 stays the HTTP servers'), with databases
// migrated by a build's own bin/migrate.js and seeded to fit the schema that made.
import { execFileSync } from 'node:child_process';
import { startPostgres } from '../../test/support/postgres.ts';
import { seedColumns } from './database.js';
import { cpuSeconds } from './processes.js';

export const DATABASE_CPU = '0';

/**
 * Starts the cluster. Durable as a production server is: fsync and full_page_writes on (the harness
 * turns them off for tests unless `fsync: true`), synchronous_commit on (the harness's default), so
 * a COMMIT returns once its WAL is flushed to disk, like SVC_DB_DURABILITY=full on SQLite.
 */
export async function startBenchPostgres() {
  const cluster = await startPostgres({ fsync: true, settings: { synchronous_commit: 'on' } });
  // Backends are forked from the postmaster and inherit its CPU.
  for (const pid of cluster.processIds()) execFileSync('taskset', ['-a', '-p', '-c', DATABASE_CPU, String(pid)], { stdio: 'ignore' });
  const [postmaster] = cluster.processIds();
  // CPU seconds of the whole cluster (postmaster, backends, WAL writer, checkpointer) so far.
  const cpu = () => cpuSeconds({ pid: postmaster });
  return { cluster, cpu };
}

/** Creates `database` (owned by the login role), migrates it with `build`'s bin/migrate.js and seeds `products` rows. */
export async function seededPostgres(cluster, database, build, products) {
  await cluster.sql([`CREATE DATABASE ${database} OWNER svc`], 'postgres');
  const env = { PATH: process.env.PATH, SVC_DATABASE_URL: cluster.urlFor(database), SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [build.migrate], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const present = (await cluster.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'products'", database)).split('\n');
  const columns = seedColumns(present);
  // PostgreSQL adds a boolean to an integer only once it is cast.
  const values = columns.map(([name, value]) => (name === 'status' ? `${value}::int` : value));
  await cluster.sql([
    `INSERT INTO products (${columns.map(([name]) => name).join(', ')}) SELECT ${values.join(', ')} FROM generate_series(1, ${products}) AS i`,
    // Settled before any copy is measured: no autovacuum of the seed during a turn.
    'VACUUM ANALYZE',
  ], database);
  return database;
}

/** A fresh copy of a seeded database for one contender; its URL. */
export async function copyOfDatabase(cluster, template, name) {
  await cluster.sql([`CREATE DATABASE ${name} TEMPLATE ${template} OWNER svc`], 'postgres');
  return cluster.urlFor(name);
}
