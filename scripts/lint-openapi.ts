// `npm run lint:openapi`: writes the document as the service serves it in each mode (SVC_AUTH off,
// off with SVC_API_TOKEN and rate limiting, keys, jwt; each built from the routes of a real app) and
// in each API version served, and lints them all with Redocly's recommended rules. The CLI is fetched
// by npx, so it is not a dependency of this package. Then generates TypeScript types from each with
// openapi-typescript (pinned in test/openapi/typed-client/) and type-checks there the client program
// written against that version, if there is one (its key calls against the keys document, the only one
// that has the keys endpoints). With `--with-test-resource`, the documents serve the throwaway resource
// of test/support/resources.ts too (no `name`, an object field, an enum without a default):
// `npm run lint:openapi -- --with-test-resource`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentOf, type Mode, VERSION_IDS } from '../test/openapi/documents.ts';
import { checkTypedClient, type ClientFile } from '../test/openapi/generated-types.ts';
import { ALL_RESOURCES, RESOURCES } from '../test/support/resources.ts';

const SERVED = process.argv.includes('--with-test-resource') ? ALL_RESOURCES : RESOURCES;
// The client program written against each version (test/openapi/typed-client/).
const PROGRAMS: Readonly<Record<string, ClientFile>> = { '2026-11-21': 'client.ts', '2026-12-05': 'client-2026-12-05.ts' };

// True when the program of `version` compiles against the types generated from the document at `path` (or there is none).
function typedClientCompiles(path: string, mode: Mode, version: string): boolean {
  const program = PROGRAMS[version];
  if (program === undefined) return true;
  const typed = checkTypedClient(readFileSync(path, 'utf8'), [], { files: program === 'client.ts' && mode === 'keys' ? ['client.ts', 'keys-client.ts'] : [program] });
  try {
    for (const { file, line, text } of typed.diagnostics) console.error(`${file}:${line}: ${text}`);
    console.log(`${basename(path)}: openapi-typescript types ${typed.diagnostics.length === 0 ? `type-check ${program}` : `do NOT type-check ${program}`}`);
    return typed.diagnostics.length === 0;
  } finally {
    typed.remove();
  }
}

const MODES: readonly { name: string; mode: Mode; rateLimited: boolean }[] = [
  { name: 'openapi', mode: 'off', rateLimited: false },
  { name: 'openapi-token-rate-limit', mode: 'token', rateLimited: true },
  { name: 'openapi-keys', mode: 'keys', rateLimited: true },
  { name: 'openapi-jwt', mode: 'jwt', rateLimited: false },
];

const config = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
try {
  const files = MODES.flatMap(({ name, mode, rateLimited }) =>
    VERSION_IDS.map((version) => {
      const path = join(folder, `${name}-${version}.json`);
      writeFileSync(path, `${JSON.stringify(documentOf(mode, rateLimited, SERVED, version), null, 2)}\n`);
      return { path, mode, version };
    }),
  );
  const lint = spawnSync('npx', ['--yes', '@redocly/cli@2', 'lint', '--config', config, ...files.map((file) => file.path)], { stdio: 'inherit' });
  const typed = files.map(({ path, mode, version }) => typedClientCompiles(path, mode, version)).every(Boolean);
  process.exitCode = lint.status === 0 && typed ? 0 : 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
