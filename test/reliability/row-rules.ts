import { DatabaseSync } from 'node:sqlite';

// What every stored row must satisfy (docs/api.md), checked straight in the file, so
// nothing a hostile request did can hide behind the API's own presenters.

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

function nameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'name is not text';
  if (name !== name.trim()) return 'name is not trimmed';
  const length = [...name].length;
  if (length < 1 || length > 200) return `name has ${length} code points`;
  if (FORBIDDEN.test(name)) return 'name has control characters';
  return null;
}

function createdAtProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !RFC3339_MS.test(value)) return 'createdAt is not RFC 3339 with milliseconds';
  return new Date(value).toISOString() === value ? null : 'createdAt is not a real instant';
}

function priceProblem(value: unknown): string | null {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 2_147_483_647 ? null : `price ${String(value)}`;
}

/** `PRAGMA integrity_check` of the file: ['ok'] when sound. */
export function integrityCheck(dbPath: string): string[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare('PRAGMA integrity_check').all().map((row) => String(row['integrity_check']));
  } finally {
    db.close();
  }
}

// createdAt and updatedAt are real instants, updatedAt not before createdAt, and a row that was
// never changed (version 1) has updatedAt equal to createdAt.
function timesProblems(row: Record<string, unknown>): (string | null)[] {
  const created = createdAtProblem(row['created_at']);
  const updated = createdAtProblem(row['updated_at'])?.replace('createdAt', 'updatedAt') ?? null;
  if (created !== null || updated !== null) return [created, updated];
  const version = row['version'];
  if (typeof version !== 'number' || version < 1) return [`version ${String(version)}`];
  if (String(row['updated_at']) < String(row['created_at'])) return ['updatedAt is before createdAt'];
  return [version === 1 && row['updated_at'] !== row['created_at'] ? 'unchanged row with updatedAt other than createdAt' : null];
}

/** Every product and workspace row that breaks a rule, described; empty when all are valid. */
export function invalidRows(dbPath: string): string[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  const found: string[] = [];
  try {
    for (const row of db.prepare('SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products').all()) {
      const problems = [nameProblem(row['name']), priceProblem(row['price_in_cents']), ...timesProblems(row)];
      if (row['status'] !== 1 && row['status'] !== 2) problems.push(`status ${String(row['status'])}`);
      for (const problem of problems) if (problem !== null) found.push(`product ${String(row['id'])}: ${problem}`);
    }
    for (const row of db.prepare('SELECT id, name, created_at, updated_at, version FROM workspaces').all()) {
      for (const problem of [nameProblem(row['name']), ...timesProblems(row)]) {
        if (problem !== null) found.push(`workspace ${String(row['id'])}: ${problem}`);
      }
    }
    return found;
  } finally {
    db.close();
  }
}

/** How many rows a table holds. */
export function countRows(dbPath: string, table: 'products' | 'workspaces' | 'idempotency_keys'): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.['n']);
  } finally {
    db.close();
  }
}
