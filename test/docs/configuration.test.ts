import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// docs/configuration.md has one row per setting: every `SVC_*` name src/ reads is a row there, and
// every row is a name src/ reads, so a setting added or removed without its row turns this red.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const namesIn = (text: string, pattern: RegExp): Set<string> => new Set([...text.matchAll(pattern)].map((match) => match[1] as string));

test('every SVC_ setting src/ reads has its row in docs/configuration.md, and every row is read', () => {
  const read = new Set(sourceFiles(join(ROOT, 'src')).flatMap((file) => [...namesIn(readFileSync(file, 'utf8'), /'(SVC_[A-Z_]+)'/g)]));
  const rows = namesIn(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'), /^\| (SVC_[A-Z_]+) \|/gm);
  assert.ok(read.has('SVC_PORT') && rows.has('SVC_PORT'), 'both lists are read');
  assert.deepEqual([...read].filter((name) => !rows.has(name)).sort(), [], 'settings without a row');
  assert.deepEqual([...rows].filter((name) => !read.has(name)).sort(), [], 'rows of settings nothing reads');
});
