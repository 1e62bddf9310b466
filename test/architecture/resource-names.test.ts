import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '../../src/registry.ts';
import { HISTORY, isOwnPlace, names, wordsOf } from './resource-names.ts';

// One resource, one place (docs/extending.md): a resource named in src/ or sql/ anywhere but its own
// places and the allowed history is a second place to keep in step, which the next resource added will
// miss. A test or a doc may take one resource as its sample; two named are a list kept by hand.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'sql', 'test', 'docs'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((path) => /\.(ts|sql|md)$/.test(path) && !path.startsWith('test/openapi/typed-client/'));
const allowed = new Set(HISTORY.map((entry) => entry.path));
const wordsByFile = new Map(files.map((path) => [path, wordsOf(readFileSync(join(ROOT, path), 'utf8'))]));

test('the words of a text are its identifiers cut at case changes, so a name is found inside another and not in a longer word', () => {
  assert.deepEqual([...wordsOf('ProductStatus productId price_in_cents PRODUCTS production')], ['product', 'status', 'id', 'price', 'in', 'cents', 'products', 'production']);
});

test('src/ and sql/ name a resource only in its own places', () => {
  const found: string[] = [];
  for (const [path, words] of wordsByFile) {
    if (path.startsWith('test/') || path.startsWith('docs/') || allowed.has(path)) continue;
    for (const resource of RESOURCES) if (names(words, resource) && !isOwnPlace(path, resource)) found.push(`${path} names ${resource.plural}`);
  }
  assert.deepEqual(found, [], 'derive it from the resource descriptions (src/registry.ts) instead');
});

test('no test or doc names two resources (a list kept by hand) unless it is the own place of one of them; it may take one as its sample', () => {
  const found: string[] = [];
  for (const [path, words] of wordsByFile) {
    if (!(path.startsWith('test/') || path.startsWith('docs/')) || allowed.has(path)) continue;
    const named = RESOURCES.filter((resource) => names(words, resource) && !isOwnPlace(path, resource));
    const own = RESOURCES.some((resource) => isOwnPlace(path, resource) && names(words, resource));
    if (named.length > 1 || (named.length === 1 && own)) found.push(`${path} names ${named.map((resource) => resource.plural).join(', ')}`);
  }
  assert.deepEqual(found, [], 'run the test over every resource (test/support/resources.ts), or say it of every resource, instead of naming them');
});

test('every allowed file exists and still names a resource (the list cannot go stale)', () => {
  for (const { path } of HISTORY) {
    const words = wordsByFile.get(path);
    assert.ok(words !== undefined, `${path} is gone: take it off HISTORY`);
    assert.ok(RESOURCES.some((resource) => names(words, resource)), `${path} names no resource any more: take it off HISTORY`);
  }
});
