// Behaviour checks of the two PostgreSQL clients, each against a live throwaway cluster: error
// objects, timeouts, an outage and the recovery, passwords in what gets logged, TLS from the URL.
// Every check returns { check, pg, postgres } with what was observed, for bench/pg-clients-checks.js.
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import pg from 'pg';
import postgres from 'postgres';

const quiet = { onnotice: () => undefined };

/** The role's password during the password checks: nothing else in a client's state contains it. */
export const PASSWORD = 'Pw4checks-q7Zr';
const ms = (start) => `${Math.round(performance.now() - start)} ms`;

/** What a promise ended with: its value, or the error's `code` and message, and how long it took. */
export async function outcome(promise) {
  const start = performance.now();
  try {
    const value = await promise;
    return `ok (${JSON.stringify(value)}) after ${ms(start)}`;
  } catch (error) {
    return `${error.constructor.name} code=${error.code ?? '–'} "${String(error.message).slice(0, 90)}" after ${ms(start)}`;
  }
}

/** Both clients, as the service would hold them: a pool of 10 on `url`, with extra options. */
export function clients(url, { pgOptions = {}, postgresOptions = {} } = {}) {
  const pool = new pg.Pool({ connectionString: url, max: 10, ...pgOptions });
  pool.on('error', () => undefined); // without this, an idle client's error (server restart) crashes the process
  const sql = postgres(url, { max: 10, ...quiet, ...postgresOptions });
  return {
    pg: (text) => pool.query(text).then((r) => r.rows[0]),
    postgres: (text) => sql.unsafe(text).then((rows) => rows[0]),
    pool,
    sql,
    end: () => Promise.all([pool.end(), sql.end({ timeout: 1 })]),
  };
}

/** SQLSTATE on the error object: a division by zero, a raised serialization failure, a unique violation. */
export async function errorChecks(url) {
  const c = clients(url);
  const rows = [];
  for (const [check, text] of [
    ['error: division by zero (22012)', 'SELECT 1/0'],
    ['error: serialization failure (40001)', "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$"],
    ['error: deadlock (40P01)', "DO $$ BEGIN RAISE EXCEPTION 'deadlock' USING ERRCODE = '40P01'; END $$"],
  ]) {
    rows.push({ check, pg: await outcome(c.pg(text)), postgres: await outcome(c.postgres(text)) });
  }
  await c.end();
  return rows;
}

/** statement_timeout set by the client at connect, and pg's client-side query_timeout. */
export async function timeoutChecks(url) {
  const c = clients(url, { pgOptions: { statement_timeout: 200 }, postgresOptions: { connection: { statement_timeout: 200 } } });
  const rows = [{ check: 'statement_timeout 200 ms, SELECT pg_sleep(2)', pg: await outcome(c.pg('SELECT pg_sleep(2)')), postgres: await outcome(c.postgres('SELECT pg_sleep(2)')) }];
  await c.end();
  const q = clients(url, { pgOptions: { query_timeout: 200 } });
  const pgTimeout = await outcome(q.pg('SELECT pg_sleep(2)'));
  const cancel = q.sql.unsafe('SELECT pg_sleep(2)');
  setTimeout(() => cancel.cancel(), 200);
  rows.push({ check: 'client-side query timeout 200 ms (pg: query_timeout; postgres: none, query.cancel() from a timer)', pg: pgTimeout, postgres: await outcome(cancel) });
  await q.end();
  return rows;
}

/** A TCP server that accepts and never answers: a hung PostgreSQL. What does connecting do? */
export async function connectTimeoutChecks() {
  const sockets = new Set();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `postgres://svc:secret@127.0.0.1:${silent.address().port}/svc`;
  const bounded = clients(url, { pgOptions: { connectionTimeoutMillis: 1000 }, postgresOptions: { connect_timeout: 1 } });
  const row = { check: 'server accepts TCP, never answers; connect timeout 1 s', pg: await outcome(bounded.pg('SELECT 1')), postgres: await outcome(bounded.postgres('SELECT 1')) };
  await bounded.end();
  const defaults = clients(url);
  const race = (p) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting after 5 s (bench gave up)')), 5000))]);
  const byDefault = { check: 'same, default settings (pg connectionTimeoutMillis 0, postgres connect_timeout 30 s)', pg: await outcome(race(defaults.pg('SELECT 1'))), postgres: await outcome(race(defaults.postgres('SELECT 1'))) };
  for (const socket of sockets) socket.destroy();
  silent.close();
  await Promise.race([defaults.end(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  return [row, byDefault];
}

/** A TCP server that accepts and closes at once (a proxy with no backend): does a call end, and when? */
export async function closingServerChecks() {
  let accepted = 0;
  const closing = createServer((socket) => {
    accepted++;
    socket.end();
  });
  await new Promise((resolve) => closing.listen(0, '127.0.0.1', resolve));
  const url = `postgres://svc:secret@127.0.0.1:${closing.address().port}/svc`;
  const race = (p) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting after 10 s (bench gave up)')), 10_000))]);
  const rows = [];
  for (const [label, postgresOptions] of [['default backoff', {}], ['backoff: false', { backoff: false }]]) {
    const c = clients(url, { pgOptions: { connectionTimeoutMillis: 2000 }, postgresOptions: { connect_timeout: 2, ...postgresOptions } });
    accepted = 0;
    const pgOutcome = await outcome(race(c.pg('SELECT 1')));
    const pgAccepted = accepted;
    accepted = 0;
    const postgresOutcome = await outcome(race(c.postgres('SELECT 1')));
    rows.push({ check: `server accepts TCP and closes at once; connect timeout 2 s; postgres ${label}`, pg: `${pgOutcome}; ${pgAccepted} connections`, postgres: `${postgresOutcome}; ${accepted} connections` });
    await Promise.race([c.end(), new Promise((resolve) => setTimeout(resolve, 2000))]);
    c.sql.end({ timeout: 0 });
  }
  closing.close();
  return rows;
}

/** Passwords: in util.inspect of the pool and of errors (wrong password, refused connection, malformed URL). */
export async function passwordChecks(url) {
  const leaks = (value) => {
    const deep = inspect(value, { depth: 8 }).includes(PASSWORD);
    const shallow = inspect(value).includes(PASSWORD); // what console.log(value) prints
    return deep ? `LEAKS the password (${shallow ? 'even in console.log' : 'at depth 8, not in console.log'})` : 'no password';
  };
  const c = clients(url);
  await c.pg('SELECT 1');
  await c.postgres('SELECT 1');
  const rows = [{ check: 'util.inspect(pool / sql) after a query, built from the URL', pg: leaks(c.pool), postgres: leaks(c.sql) }];
  await c.end();
  const { hostname: host, port, username: user, password, pathname } = new URL(url);
  const parts = { host, port: Number(port), user, password, database: pathname.slice(1) };
  const pool = new pg.Pool(parts);
  const sql = postgres({ ...parts, ...quiet });
  await Promise.all([pool.query('SELECT 1'), sql`SELECT 1`]);
  rows.push({ check: 'util.inspect(pool / sql) after a query, built from parts (host, user, password…)', pg: leaks(pool), postgres: leaks(sql) });
  await Promise.all([pool.end(), sql.end({ timeout: 1 })]);
  const caught = async (fn) => { try { await fn(); return 'no error'; } catch (error) { return leaks(error); } };
  const wrong = url.replace(`:${PASSWORD}@`, `:${PASSWORD}x@`);
  const down = url.replace(/:\d+\//, ':1/');
  const malformed = url.replace(/:\d+\//, ':port/');
  for (const [check, target] of [['error of a wrong password', wrong], ['error of a refused connection', down], ['error of a malformed URL (port "port")', malformed]]) {
    rows.push({
      check: `util.inspect(${check})`,
      pg: await caught(async () => { const p = new pg.Pool({ connectionString: target }); p.on('error', () => undefined); try { await p.query('SELECT 1'); } finally { await p.end().catch(() => undefined); } }),
      postgres: await caught(async () => { const s = postgres(target, quiet); try { await s`SELECT 1`; } finally { await s.end({ timeout: 0 }).catch(() => undefined); } }),
    });
  }
  return rows;
}
