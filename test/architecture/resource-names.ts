// Where a resource's name may appear (docs/extending.md, One resource, one place): a resource is
// described once, in its folder; everything else derives from the description, so no other file of
// src/ or sql/ names it, and no test or doc names two resources (a hand-written list of them) unless
// it is one resource's own place. The rules as data, checked by resource-names.test.ts.
import type { Resource } from '../../src/resources/resource.ts';

/** The words of a text: identifiers cut at case changes and non-letters, lower case (`ProductStatus` → product, status). */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const token of text.match(/[A-Za-z]+/g) ?? []) {
    for (const word of token.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? []) words.add(word.toLowerCase());
  }
  return words;
}

/** Whether `words` name `resource` (its singular or its plural). */
export function names(words: ReadonlySet<string>, resource: Resource): boolean {
  return words.has(resource.singular) || words.has(resource.plural);
}

/** A file that may name a resource, and why: shipped history is never rewritten. */
export interface Allowed {
  readonly path: string;
  readonly why: string;
}

/**
 * Files that name resources for a reason of their own. Migrations that shipped are never edited
 * (docs/extending.md, Migrations), nor are the decisions already taken; their tests are the
 * migrations' own.
 */
export const HISTORY: readonly Allowed[] = [
  { path: 'sql/001_init.sql', why: 'shipped migration: made the first tables' },
  { path: 'sql/002_change_and_delete.sql', why: 'shipped migration: rebuilt them' },
  { path: 'sql/004_events.sql', why: 'shipped migration: its comment says which changes it records' },
  { path: 'sql/postgres/001_init.sql', why: 'shipped migration' },
  { path: 'sql/postgres/002_change_and_delete.sql', why: 'shipped migration' },
  { path: 'test/unit/migrate-002.test.ts', why: "migration 002's own test: what it does to the tables it rebuilt" },
  { path: 'test/unit/migrate.test.ts', why: 'the migrations of the first tables, as they shipped' },
  { path: 'docs/decisions.md', why: 'the decisions taken, as they were taken' },
];

/**
 * A resource's own places: its folder, its engine repositories where its SQL is its own, the one
 * registration line, its tests (a file named after it), the section of docs/api.md that describes it,
 * docs/testing.md, which names its tests, and docs/extending.md, the guide that shows them as examples.
 */
export function isOwnPlace(path: string, resource: Resource): boolean {
  const file = path.slice(path.lastIndexOf('/') + 1);
  const named = wordsOf(file);
  if (path.startsWith(`src/${resource.plural}/`) || path === 'src/registry.ts') return true;
  if ((path.startsWith('src/sqlite/') || path.startsWith('src/postgres/') || path.startsWith('sql/')) && names(named, resource)) return true;
  if (path.startsWith('test/') && names(named, resource)) return true;
  return path === 'docs/api.md' || path === 'docs/testing.md' || path === 'docs/extending.md';
}
