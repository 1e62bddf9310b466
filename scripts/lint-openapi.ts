// `npm run lint:openapi`: writes the document as the service serves it in each mode (SVC_AUTH off,
// off with SVC_API_TOKEN and rate limiting, keys, jwt; each built from the routes of a real app) and
// lints them with Redocly's recommended rules. The CLI is fetched by npx, so it is not a dependency
// of this package. Then generates TypeScript types from each with openapi-typescript (pinned in
// test/openapi/typed-client/) and type-checks the client there against them (its key calls against
// the keys document, the only one that has the keys endpoints). With `--with-test-resource`, the
// documents serve the throwaway resource of test/support/resources.ts too (no `name`, an object field,
// an enum without a default): `npm run lint:openapi -- --with-test-resource`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentOf, type Mode } from '../test/openapi/documents.ts';
import { checkTypedClient } from '../test/openapi/generated-types.ts';
import { ALL_RESOURCES, RESOURCES } from '../test/support/resources.ts';

const SERVED = process.argv.includes('--with-test-resource') ? ALL_RESOURCES : RESOURCES;

// True when the client compiles against the types generated from the document at `path`.
function typedClientCompiles(path: string, mode: Mode): boolean {
  const typed = checkTypedClient(readFileSync(path, 'utf8'), [], { keys: mode === 'keys' });
  try {
    for (const { file, line, text } of typed.diagnostics) console.error(`${file}:${line}: ${text}`);
    console.log(`${basename(path)}: openapi-typescript types ${typed.diagnostics.length === 0 ? 'type-check the client' : 'do NOT type-check the client'}`);
    return typed.diagnostics.length === 0;
  } finally {
    typed.remove();
  }
}

const DOCUMENTS: readonly { file: string; mode: Mode; rateLimited: boolean }[] = [
  { file: 'openapi.json', mode: 'off', rateLimited: false },
  { file: 'openapi-token-rate-limit.json', mode: 'token', rateLimited: true },
  { file: 'openapi-keys.json', mode: 'keys', rateLimited: true },
  { file: 'openapi-jwt.json', mode: 'jwt', rateLimited: false },
];

const config = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
try {
  const files = DOCUMENTS.map(({ file, mode, rateLimited }) => {
    const path = join(folder, file);
    writeFileSync(path, `${JSON.stringify(documentOf(mode, rateLimited, SERVED), null, 2)}\n`);
    return { path, mode };
  });
  const lint = spawnSync('npx', ['--yes', '@redocly/cli@2', 'lint', '--config', config, ...files.map((file) => file.path)], { stdio: 'inherit' });
  const typed = files.map(({ path, mode }) => typedClientCompiles(path, mode)).every(Boolean);
  process.exitCode = lint.status === 0 && typed ? 0 : 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
