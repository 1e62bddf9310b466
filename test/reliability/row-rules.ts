import { DatabaseSync } from 'node:sqlite';
import type { Resource } from '../../src/resources/resource.ts';
import { placesOf, type Place } from '../support/resource-places.ts';
import { validate } from '../support/schema.ts';

// What every stored row must satisfy (docs/api.md), checked straight in the file, so nothing a
// hostile request did can hide behind the API's own presenters. The rules of each column come from
// the resource's description as the document states them (each field's JSON Schema), not from the
// validators that wrote the rows; a text is also trimmed and free of controls and lone surrogates.

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

// What is wrong with the value a column holds for `place`, or null.
function placeProblem(place: Place, value: unknown): string | null {
  const at = place.pointer.slice(1);
  if (place.spec.type === 'text') {
    if (typeof value !== 'string') return `${at} is not text`;
    if (value !== value.trim()) return `${at} is not trimmed`;
    if (FORBIDDEN.test(value)) return `${at} has control characters`;
  }
  const errors = validate(value, place.spec.schema, place.root);
  return errors.length === 0 ? null : `${at} ${JSON.stringify(value)}: ${errors.join('; ')}`;
}

function createdAtProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !RFC3339_MS.test(value)) return 'createdAt is not RFC 3339 with milliseconds';
  return new Date(value).toISOString() === value ? null : 'createdAt is not a real instant';
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

/** Every row of `resources`' tables that breaks a rule, described; empty when all are valid. */
export function invalidRows(dbPath: string, resources: readonly Resource[]): string[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  const found: string[] = [];
  try {
    for (const resource of resources) {
      const places = placesOf(resource);
      const columns = resource.columns.map((column) => column.name).join(', ');
      for (const row of db.prepare(`SELECT ${columns} FROM ${resource.plural}`).all()) {
        const id = row['id'];
        const problems = [Number.isInteger(id) && Number(id) >= 1 ? null : `id ${String(id)}`, ...timesProblems(row)];
        for (const place of places) problems.push(placeProblem(place, row[place.column.name]));
        for (const problem of problems) if (problem !== null) found.push(`${resource.singular} ${String(id)}: ${problem}`);
      }
    }
    return found;
  } finally {
    db.close();
  }
}

/** How many rows a table holds. */
export function countRows(dbPath: string, table: string): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.['n']);
  } finally {
    db.close();
  }
}
