import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import { CURRENCIES } from '../../src/shared/currencies.ts';

// Two lists the documentation shows a reader, each kept equal to the one the service is built from.
const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

test('docs/versions.md lists every version, newest first, with the summary the service serves', () => {
  const rows = [...read('docs/versions.md').matchAll(/^\| `(\d{4}-\d{2}-\d{2})` \| (.+) \|$/gm)].map(([, version, summary]) => ({ version, summary }));
  assert.deepEqual(rows, [...VERSIONS].reverse().map(({ version, summary }) => ({ version, summary })));
});

test("the README's currencies are the ones a price may be in", () => {
  const block = read('README.md').split('## Currencies')[1]?.split('```text\n')[1]?.split('```')[0] ?? '';
  assert.deepEqual(block.split(/\s+/).filter((code) => code !== ''), [...CURRENCIES]);
});
