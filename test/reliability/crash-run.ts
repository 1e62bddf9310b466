import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { migratedDatabaseFile } from '../support/server.ts';
import { type Milestone, milestone, whileWriting } from './milestone.ts';
import { type Random, seededRandom } from './seeded-random.ts';
import { spawnServer, type SpawnedServer } from './spawned-server.ts';

/** How many times to kill the server, with how many concurrent writers, from which seed. */
export interface CrashOptions {
  kills: number;
  seed: number;
  writers?: number;
  log?: (message: string) => void;
}

/** What a run proved, for the report. */
export interface CrashFigures {
  kills: number;
  attempted: number;
  /** Answered 201 before the kill; each was then read back identical. */
  acknowledged: number;
  /** In flight when the server died (no answer), or answered 503: may or may not have been stored. */
  inDoubt: number;
  /** Keyed creates retried after a restart (in doubt or acknowledged); each exists exactly once. */
  keyedRetries: number;
  replayed: number;
  /** PATCHes (with If-Match) and DELETEs answered 200/204 before the kill; each was then read back as answered. */
  changesAcknowledged: number;
}

/** A PATCH or DELETE sent to an acknowledged product: what it answered, or null while in doubt. */
interface Change {
  kind: 'patch' | 'delete';
  name: string;
  ack: Record<string, unknown> | 'deleted' | null;
}

/** One create sent: its body, its key, the 201 body when it was acknowledged, and a later change of it. */
interface Attempt {
  body: { name: string; priceInCents: number; status: number };
  key: string | null;
  ack: Record<string, unknown> | null;
  change?: Change;
}

async function post(url: string, attempt: Attempt): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (attempt.key !== null) headers['idempotency-key'] = attempt.key;
  return fetch(`${url}/api/products`, { method: 'POST', headers, body: JSON.stringify(attempt.body) });
}

// A PATCH (If-Match its tag; the status is sent unchanged, so an archived product may take it)
// or a DELETE of a product just acknowledged. A 503 leaves it in doubt (ack null), as no answer does.
async function change(url: string, attempt: Attempt, random: Random, acked: Milestone): Promise<void> {
  const ack = attempt.ack as Record<string, unknown>;
  const target = `${url}/api/products/${String(ack['id'])}`;
  const kind = random.chance(0.7) ? 'patch' : 'delete';
  const name = `${attempt.body.name} changed`;
  attempt.change = { kind, name, ack: null };
  if (kind === 'delete') {
    const response = await fetch(target, { method: 'DELETE', headers: { 'if-match': '"1"' } });
    if (response.status === 503) return;
    if (response.status !== 204) throw new Error(`change answered ${response.status}: ${await response.text()}`);
    attempt.change.ack = 'deleted';
    acked.reach();
    return;
  }
  const body = JSON.stringify({ name, status: 1 });
  const response = await fetch(target, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' }, body });
  if (response.status === 503) return;
  if (response.status !== 200) throw new Error(`change answered ${response.status}: ${await response.text()}`);
  attempt.change.ack = (await response.json()) as Record<string, unknown>;
  acked.reach();
}

/** A request that got no answer: when (performance.now()) and what the client saw. */
interface Failure {
  at: number;
  error: unknown;
}

/** One life of the server: what its writers sent, the requests the kill left unanswered, and its first acknowledged change. */
interface Round {
  attempts: Attempt[];
  failures: Failure[];
  changeAcked: Milestone;
}

// One writer: creates one product after another, changing some of them, until a request gets no
// answer (the server was killed; killUnderLoad checks that it was the kill, not a death of its own).
// A 503 leaves its request in doubt, and the writer goes on: the server is still there.
async function writer(url: string, round: number, id: number, random: Random, { attempts, failures, changeAcked }: Round): Promise<void> {
  for (let n = 0; n < 100_000; n++) {
    const name = `crash r${round} w${id} n${n} ${random.int(1e9)}`;
    const key = random.chance(0.4) ? `crash-${round}-${id}-${n}` : null;
    const attempt: Attempt = { body: { name, priceInCents: random.int(1_000_000), status: random.pick([1, 2]) }, key, ack: null };
    attempts.push(attempt);
    try {
      const response = await post(url, attempt);
      if (response.status === 503) continue;
      if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
      attempt.ack = (await response.json()) as Record<string, unknown>;
      if (random.chance(0.3)) await change(url, attempt, random, changeAcked);
    } catch (error) {
      if (/^(create|change) answered/.test((error as Error).message)) throw error;
      failures.push({ at: performance.now(), error });
      return; // this attempt is in doubt, and the writer stops
    }
  }
}

/**
 * SIGKILLs a server that must still be running under `writers`, and proves that the kill is what
 * ended it: it ended by SIGKILL, and every request that got no answer failed after the signal was
 * sent, as a lost connection. A server that died by itself must never read as killed.
 */
async function killUnderLoad(server: SpawnedServer, writers: readonly Promise<void>[], failures: readonly Failure[]): Promise<void> {
  assert.equal(server.child.exitCode ?? server.child.signalCode, null, `the server died by itself before the kill: ${server.stderr()}`);
  const killedAt = performance.now();
  const exit = await server.kill('SIGKILL');
  assert.deepEqual(exit, { code: null, signal: 'SIGKILL' }, `the server ended by itself, not by the kill: ${server.stderr()}`);
  await Promise.all(writers);
  assert.equal(failures.length, writers.length, 'every writer ends with the request the kill left unanswered');
  for (const { at, error } of failures) {
    const seen = `${String(error)} (${String((error as Error).cause ?? 'no cause')})`;
    assert.ok(at >= killedAt, `a request failed ${(killedAt - at).toFixed(1)} ms before the kill: ${seen}; stderr: ${server.stderr()}`);
    // undici reports a lost connection as a TypeError ("fetch failed", "terminated"); anything else is a bug.
    assert.ok(error instanceof TypeError, `a request failed otherwise than by a lost connection: ${seen}`);
  }
}

function integrityOk(dbPath: string): void {
  const db = new DatabaseSync(dbPath);
  try {
    const rows = db.prepare('PRAGMA integrity_check').all();
    assert.deepEqual(rows.map((row) => row['integrity_check']), ['ok']);
  } finally {
    db.close();
  }
}

function rowsNamed(dbPath: string, name: string): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM products WHERE name = ?').get(name)?.['n']);
  } finally {
    db.close();
  }
}

// What a product must read back as: its acknowledged change, else its 201. A change in doubt (sent,
// never answered) may or may not have landed; either outcome is whole, never half of it.
function expectedStates(attempt: Attempt): (Record<string, unknown> | 'deleted')[] {
  const created = attempt.ack as Record<string, unknown>;
  const change = attempt.change;
  if (change === undefined) return [created];
  if (change.ack !== null) return [change.ack];
  return [created, 'deleted', { ...created, name: change.name, status: 1 }];
}

// Every acknowledged write (201, and 200/204 of a change) must read back exactly as it was acknowledged.
async function verifyAcknowledged(url: string, attempts: readonly Attempt[]): Promise<void> {
  for (const attempt of attempts) {
    if (attempt.ack === null) continue;
    const id = String(attempt.ack['id']);
    const response = await fetch(`${url}/api/products/${id}`);
    const state = response.status === 404 ? 'deleted' : ((await response.json()) as Record<string, unknown>);
    const comparable = (value: Record<string, unknown> | 'deleted'): unknown =>
      value === 'deleted' || attempt.change?.ack !== null ? value : { ...value, updatedAt: '' };
    const allowed = expectedStates(attempt).map(comparable);
    assert.ok(
      allowed.some((candidate) => JSON.stringify(candidate) === JSON.stringify(comparable(state))),
      `product ${id} after a crash reads ${JSON.stringify(state)}, expected one of ${JSON.stringify(allowed)}`,
    );
  }
}

// A client that did not hear back retries with the same key: it must end with exactly one row.
async function retryInDoubt(server: SpawnedServer, dbPath: string, attempts: readonly Attempt[], figures: CrashFigures): Promise<void> {
  for (const attempt of attempts) {
    if (attempt.key === null) {
      if (attempt.ack === null) assert.ok(rowsNamed(dbPath, attempt.body.name) <= 1, 'an unkeyed create landed twice');
      continue;
    }
    const response = await post(server.url, attempt);
    assert.equal(response.status, 201, `retry of ${attempt.key} answered ${response.status}`);
    const body = (await response.json()) as Record<string, unknown>;
    const replayed = response.headers.get('idempotent-replayed') === 'true';
    if (attempt.ack !== null) {
      assert.ok(replayed, `retry of acknowledged ${attempt.key} was not a replay`);
      assert.deepEqual(body, attempt.ack, 'a replay must return the original response');
    }
    if (replayed) figures.replayed++;
    figures.keyedRetries++;
    // A product renamed or deleted since is matched by the replayed id instead of by its name.
    if (attempt.change === undefined) assert.equal(rowsNamed(dbPath, attempt.body.name), 1, `${attempt.key} must exist exactly once`);
    attempt.ack = body;
  }
}

/** Kills a durable server with SIGKILL at seeded random moments under concurrent creates and changes, and checks every promise. */
export async function runCrashRounds(options: CrashOptions): Promise<CrashFigures> {
  const random = seededRandom(options.seed);
  const { dir, dbPath } = migratedDatabaseFile();
  const env = { SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'full', SVC_LOG_LEVEL: 'info' };
  const figures: CrashFigures = { kills: 0, attempted: 0, acknowledged: 0, inDoubt: 0, keyedRetries: 0, replayed: 0, changesAcknowledged: 0 };
  const all: Attempt[] = [];
  let server: SpawnedServer | null = null;
  try {
    for (let round = 0; round < options.kills; round++) {
      server = await spawnServer(env, dirname(dbPath));
      const current: Round = { attempts: [], failures: [], changeAcked: milestone() };
      const { attempts, failures } = current;
      const writers = Array.from({ length: options.writers ?? 8 }, (_, id) => writer(server!.url, round, id, random, current));
      // The kill comes at a random moment once a create and a change have been acknowledged, however slow the start.
      await whileWriting(current.changeAcked, writers, 'change acknowledged');
      await sleep(random.between(0, 550));
      await killUnderLoad(server, writers, failures);
      figures.kills++;
      const acked = attempts.filter((a) => a.ack !== null).length;
      figures.attempted += attempts.length;
      figures.acknowledged += acked;
      figures.inDoubt += attempts.length - acked;
      figures.changesAcknowledged += attempts.filter((a) => a.change?.ack !== undefined && a.change.ack !== null).length;
      integrityOk(dbPath);
      server = await spawnServer(env, dirname(dbPath));
      await verifyAcknowledged(server.url, all);
      await retryInDoubt(server, dbPath, attempts, figures);
      await verifyAcknowledged(server.url, attempts);
      assert.deepEqual(await server.kill('SIGTERM'), { code: 0, signal: null }, `a SIGTERM must end the server cleanly: ${server.stderr()}`);
      all.push(...attempts);
      const changes = attempts.filter((a) => a.change !== undefined).length;
      options.log?.(`kill ${round + 1}/${options.kills}: ${attempts.length} creates and ${changes} changes sent, ${acked} creates acknowledged before the kill`);
    }
    integrityOk(dbPath);
    return figures;
  } finally {
    await server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
