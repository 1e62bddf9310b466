// `npx node bench/pg-clients-checks.js` (after `npm --prefix bench install`): how `pg` and `postgres`
// behave where the service needs them to (errors, timeouts, an outage, passwords, TLS), observed
// against throwaway clusters rather than read from documentation. Prints a markdown table and writes
// bench/results/pg-clients-checks.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../test/support/postgres.ts';
import { closingServerChecks, connectTimeoutChecks, errorChecks, PASSWORD, passwordChecks, timeoutChecks } from './lib/pg-checks.js';
import { outageChecks, tlsChecks } from './lib/pg-checks-server.js';
import { BENCH } from './lib/paths.js';
import { markdownTable } from './lib/stats.js';

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
const cluster = await startPostgres();
const rows = [];
try {
  // A password no property name contains (pg keeps the server's cancel key as `secretKey`).
  await cluster.sql(`ALTER ROLE svc PASSWORD '${PASSWORD}'`);
  const url = cluster.url.replace(':secret@', `:${PASSWORD}@`);
  for (const checks of [errorChecks, timeoutChecks, passwordChecks]) rows.push(...(await checks(url)));
  rows.push(...(await connectTimeoutChecks()), ...(await closingServerChecks()));
  await cluster.sql(`ALTER ROLE svc PASSWORD 'secret'`);
  rows.push(...(await outageChecks(cluster, 'outage, default settings')));
  // postgres waits before reconnecting, longer after each failure (up to 20 s): with no wait, does it fail fast?
  rows.push(...(await outageChecks(cluster, 'outage, postgres with backoff: false', { backoff: false })));
} finally {
  await cluster.stop();
}
rows.push(...(await tlsChecks()));
const pkg = (name) => JSON.parse(readFileSync(join(BENCH, 'node_modules', name, 'package.json'), 'utf8')).version;
const text = [
  `# PostgreSQL client behaviour: pg ${pkg('pg')}, postgres ${pkg('postgres')}, Node ${process.version}`,
  '',
  markdownTable(['check', 'pg', 'postgres'], rows.map((r) => [cell(r.check), cell(r.pg), cell(r.postgres)])),
].join('\n');
mkdirSync(join(BENCH, 'results'), { recursive: true });
writeFileSync(join(BENCH, 'results', 'pg-clients-checks.md'), `${text}\n`);
process.stdout.write(`${text}\n`);
