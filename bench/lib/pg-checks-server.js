// Checks that need control of the server: an outage and the recovery, and TLS chosen by the URL's sslmode.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../../test/support/postgres.ts';
import { clients, outcome } from './pg-checks.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls every 50 ms until a query succeeds: how long after the server is back, and how many calls failed meanwhile.
async function firstSuccess(query) {
  const start = performance.now();
  let failures = 0;
  while (performance.now() - start < 30_000) {
    try {
      await query('SELECT 1');
      return `ok after ${Math.round(performance.now() - start)} ms (${failures} calls failed first)`;
    } catch {
      failures++;
      await sleep(50);
    }
  }
  return `still failing after 30 s (${failures} calls)`;
}

async function settleAll(query, count) {
  const start = performance.now();
  const results = await Promise.allSettled(Array.from({ length: count }, () => query('SELECT 1')));
  const rejected = results.filter((r) => r.status === 'rejected');
  const codes = [...new Set(rejected.map((r) => r.reason.code))].join(',');
  return `${rejected.length}/${count} rejected (${codes || 'none'}) within ${Math.round(performance.now() - start)} ms`;
}

/**
 * The server stops (fast shutdown) under open pools, stays down 2 s, and comes back on the same port.
 * `label` names the run; `postgresOptions` lets a run change postgres's reconnect backoff.
 */
export async function outageChecks(cluster, label, postgresOptions = {}) {
  const c = clients(cluster.url, { pgOptions: { connectionTimeoutMillis: 2000 }, postgresOptions: { connect_timeout: 2, ...postgresOptions } });
  await Promise.all(Array.from({ length: 30 }, () => Promise.all([c.pg('SELECT 1'), c.postgres('SELECT 1')])));
  await cluster.stopServer('fast');
  const rows = [
    { check: `${label}: first call after the server stopped (pool had 10 open connections)`, pg: await outcome(c.pg('SELECT 1')), postgres: await outcome(c.postgres('SELECT 1')) },
    { check: `${label}: 100 concurrent calls while down`, pg: await settleAll(c.pg, 100), postgres: await settleAll(c.postgres, 100) },
  ];
  await sleep(2000);
  rows.push({ check: `${label}: a call after 2 s down`, pg: await outcome(c.pg('SELECT 1')), postgres: await outcome(c.postgres('SELECT 1')) });
  await cluster.startServer();
  const [pgBack, postgresBack] = await Promise.all([firstSuccess(c.pg), firstSuccess(c.postgres)]);
  rows.push({ check: `${label}: first success once the server is back (same pool, polled every 50 ms)`, pg: pgBack, postgres: postgresBack });
  rows.push({ check: `${label}: 100 concurrent calls afterwards`, pg: await settleAll(c.pg, 100), postgres: await settleAll(c.postgres, 100) });
  await c.end();
  return rows;
}

function selfSignedCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-tls-'));
  const [cert, key] = [join(dir, 'server.crt'), join(dir, 'server.key')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  if (process.getuid?.() === 0) {
    // The server runs as `postgres` when we are root (the harness's rule) and must own its key.
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    for (const path of [dir, cert, key]) chownSync(path, uid, -1);
  }
  return { dir, cert, key };
}

/** A server with TLS on (self-signed certificate): what each URL sslmode does with each client. */
export async function tlsChecks() {
  const { dir, cert, key } = selfSignedCertificate();
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning.message.split('\n')[0]);
  process.on('warning', onWarning);
  const cluster = await startPostgres({ settings: { ssl: 'on', ssl_cert_file: `'${cert}'`, ssl_key_file: `'${key}'` } });
  const rows = [];
  try {
    for (const query of ['sslmode=disable', 'sslmode=require', 'sslmode=verify-full', `sslmode=verify-full&sslrootcert=${cert}`, 'sslmode=no-verify', 'uselibpqcompat=true&sslmode=require']) {
      const c = clients(`${cluster.url}?${query}`.replace('127.0.0.1', 'localhost'));
      const text = 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()';
      rows.push({ check: `TLS: ?${query.replace(cert, 'CA.pem')} (self-signed server certificate)`, pg: await outcome(c.pg(text)), postgres: await outcome(c.postgres(text)) });
      await c.end().catch(() => undefined);
    }
  } finally {
    process.off('warning', onWarning);
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  rows.push({ check: 'TLS: process warnings emitted', pg: [...new Set(warnings)].join(' | ') || 'none', postgres: '' });
  return rows;
}
