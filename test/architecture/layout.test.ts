import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ImportGraph, importsOf, partOf, readImportGraph } from './import-graph.ts';
import { RESOURCES } from '../../src/registry.ts';
import { DESCRIBED_FOLDERS, KNOWN_EXCEPTIONS, PARTS, partOfFile, RULES, sameViolation, type Violation, violations } from './rules.ts';

// The rules of docs/architecture.md over the import graph of src/: a change that breaks one fails here.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const graph = readImportGraph(ROOT);
// Whitespace collapsed: a sentence of the page may wrap anywhere.
const picture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8').replace(/\s+/g, ' ');
const describe = (v: Violation): string => `${v.from} imports ${v.to}: breaks rule ${v.rule} (${RULES.find((r) => r.id === v.rule)?.says ?? '?'})`;

test('the parser reads every form of import and ignores imports quoted in comments', () => {
  const text = [
    "// import { quoted } from './comment.ts';",
    '/* import { alsoQuoted } from "./block.ts"; */',
    "import { a, type B, c as d } from './a.ts';",
    "import type { E } from '../db/e.ts';",
    'export {',
    '  f,',
    '  type G,',
    "} from './f.ts';",
    "import './side-effect.ts';",
    "const lazy = await import('node:http');",
  ].join('\n');
  assert.deepEqual(
    importsOf('src/http/x.ts', text).map(({ target, names }) => ({ target, names })),
    [
      { target: 'src/http/a.ts', names: ['a', 'B', 'c'] },
      { target: 'src/db/e.ts', names: ['E'] },
      { target: 'src/http/f.ts', names: ['f', 'G'] },
      { target: 'src/http/side-effect.ts', names: [] },
      { target: 'node:http', names: [] },
    ],
  );
});

// A described resource's folder, as the sample of one (any would do: the rules are the same for each).
const SAMPLE = DESCRIBED_FOLDERS[0] ?? 'src/<none>/';

// Each case is one import that breaks exactly the named rule, and one beside it that keeps every rule.
const CASES: readonly { rule: string; from: string; line: string; fine: { from: string; line: string } }[] = [
  { rule: '1 storage-knows-no-http', from: 'src/sqlite/x.ts', line: "import { HttpError } from '../http/errors.ts';", fine: { from: 'src/sqlite/x.ts', line: "import type { Resource } from '../resources/resource.ts';" } },
  { rule: '1 storage-knows-no-http', from: 'src/db/x.ts', line: "import { validatorsOf } from '../resources/validate.ts';", fine: { from: 'src/db/x.ts', line: "import type { ResourceRepository } from '../resources/repository.ts';" } },
  { rule: '2 resources-know-no-engine', from: `${SAMPLE}resource.ts`, line: "import { isPostgres } from '../db/engine.ts';", fine: { from: `${SAMPLE}resource.ts`, line: "import { textField } from '../resources/fields.ts';" } },
  { rule: '2 resources-know-no-engine', from: 'src/resources/fields.ts', line: "import type { IncomingMessage } from 'node:http';", fine: { from: 'src/resources/use-cases.ts', line: "import type { Storage } from '../db/storage.ts';" } },
  { rule: '2 resources-know-no-engine', from: 'src/readiness/model.ts', line: "import type { IncomingMessage } from 'node:http';", fine: { from: 'src/http/body.ts', line: "import type { IncomingMessage } from 'node:http';" } },
  { rule: '3 use-cases-know-no-http', from: 'src/callers/use-cases.ts', line: "import { HttpError } from '../http/errors.ts';", fine: { from: 'src/callers/routes.ts', line: "import { HttpError } from '../http/errors.ts';" } },
  { rule: '4 engines-apart', from: 'src/http/x.ts', line: "import { openDatabase } from '../sqlite/database.ts';", fine: { from: 'src/server.ts', line: "import { openDatabase } from './sqlite/database.ts';" } },
  { rule: '5 one-place-wires', from: 'src/server.ts', line: "import { addResourceRoutes } from './resources/routes.ts';", fine: { from: 'src/app.ts', line: "import { addResourceRoutes } from './resources/routes.ts';" } },
  { rule: '5 one-place-wires', from: 'src/webhooks/routes.ts', line: "import { createResourceUseCases } from '../resources/use-cases.ts';", fine: { from: 'src/resources/routes.ts', line: "import type { ResourceUseCases } from './use-cases.ts';" } },
  { rule: '5 one-place-wires', from: 'src/openapi/x.ts', line: "import { createStorage } from '../db/engine.ts';", fine: { from: 'src/openapi/x.ts', line: "import type { Database } from '../db/engine.ts';" } },
  { rule: '5 one-place-wires', from: 'src/workers/x.ts', line: "import { createApp } from '../app.ts';", fine: { from: 'src/index.ts', line: "export { createApp } from './app.ts';" } },
  { rule: '5 one-place-wires', from: 'src/openapi/x.ts', line: "import { RESOURCES } from '../registry.ts';", fine: { from: 'src/webhook-deliveries.ts', line: "import { RESOURCES } from './registry.ts';" } },
  { rule: '6 core-before-later', from: 'src/http/x.ts', line: "import { UNMATCHED_ROUTE } from '../metrics/http-metrics.ts';", fine: { from: 'src/app.ts', line: "import { UNMATCHED_ROUTE } from './metrics/http-metrics.ts';" } },
  { rule: '6 core-before-later', from: 'src/db/storage.ts', line: "import { hashKey } from '../keys/hash.ts';", fine: { from: 'src/db/storage.ts', line: "import type { KeyRepository } from '../keys/repository.ts';" } },
  { rule: '6 core-before-later', from: 'src/resources/use-cases.ts', line: "import { presentEvent } from '../events/presenter.ts';", fine: { from: 'src/sqlite/events.ts', line: "import type { EventRepository } from '../events/repository.ts';" } },
  { rule: '7 imports-stay-close', from: 'src/http/x.ts', line: "import { x } from '../../test/support/y.ts';", fine: { from: 'src/http/x.ts', line: "import { y } from '../shared/y.ts';" } },
  { rule: '7 imports-stay-close', from: 'src/http/x.ts', line: "import pg from 'pg';", fine: { from: 'src/http/x.ts', line: "import { createHash } from 'node:crypto';" } },
];

const graphOf = (from: string, line: string): ImportGraph => new Map([[from, importsOf(from, line)]]);

test('the checker catches each rule, and lets the import beside it through', () => {
  for (const { rule, from, line, fine } of CASES) {
    assert.deepEqual(violations(graphOf(from, line)).map((v) => v.rule), [rule], `${from}: ${line}`);
    assert.deepEqual(violations(graphOf(fine.from, fine.line)), [], `${fine.from}: ${fine.line}`);
  }
  assert.deepEqual([...new Set(CASES.map((c) => c.rule))], RULES.map((r) => r.id), 'every rule has a case');
});

test('every file of src/ belongs to a part, and every part is in the picture of docs/architecture.md', () => {
  const unplaced = [...new Set([...graph.keys()].filter((file) => partOfFile(file) === undefined).map(partOf))];
  assert.deepEqual(unplaced, [], 'add each to PARTS in test/architecture/rules.ts and to the picture in docs/architecture.md');
  // A described resource's folder is found, not listed: the picture shows them as one, `src/<plural>/`.
  const places = [...Object.values(PARTS).flat().filter((place) => !DESCRIBED_FOLDERS.includes(place)), 'src/<plural>/'];
  assert.deepEqual(places.filter((place) => !picture.includes(place)), [], 'docs/architecture.md names every part of src/');
});

test('the folders holding a resource.ts are the registered resources\' (src/<plural>/), so each is a resource folder to the rules', () => {
  assert.deepEqual([...DESCRIBED_FOLDERS].sort(), RESOURCES.map((resource) => `src/${resource.plural}/`).sort(), 'register each resource in src/registry.ts, in its own folder');
  for (const folder of DESCRIBED_FOLDERS) assert.equal(partOfFile(`${folder}resource.ts`), 'resources', folder);
});

test('every import of src/ resolves to a file of src/ or a node: built-in', () => {
  const dangling = [...graph].flatMap(([from, imports]) =>
    imports.filter((i) => !i.target.startsWith('node:') && i.target.startsWith('src/') && !graph.has(i.target)).map((i) => `${from} imports ${i.specifier}`),
  );
  assert.deepEqual(dangling, []);
});

test('no import of src/ breaks a rule, apart from the known exceptions', () => {
  const unexpected = violations(graph).filter((v) => !KNOWN_EXCEPTIONS.some((known) => sameViolation(v, known)));
  assert.deepEqual(unexpected.map(describe), []);
});

test('every known exception still happens and is written in docs/architecture.md', () => {
  const found = violations(graph);
  const fixed = KNOWN_EXCEPTIONS.filter((known) => !found.some((v) => sameViolation(v, known)));
  assert.deepEqual(fixed, [], 'fixed: remove it from KNOWN_EXCEPTIONS and from docs/architecture.md');
  const unwritten = KNOWN_EXCEPTIONS.filter((known) => !picture.includes(`${known.from}\` → \`${known.to}`));
  assert.deepEqual(unwritten, [], 'docs/architecture.md lists each known exception as `from` → `to`');
});

test('docs/architecture.md states every rule', () => {
  const missing = RULES.map((rule) => rule.id.replace(/^(\d+) /, '$1. `') + '`').filter((label) => !picture.includes(label));
  assert.deepEqual(missing, []);
});
