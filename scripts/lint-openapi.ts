// `npm run lint:openapi`: writes the document as the service serves it (with the defaults, and with
// a token and rate limiting on, so every response is listed) and lints both with Redocly's
// recommended rules. The CLI is fetched by npx, so it is not a dependency of this package.
// Then generates TypeScript types from each with openapi-typescript (pinned in
// test/openapi/typed-client/) and type-checks the client there against them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { checkTypedClient } from '../test/openapi/generated-types.ts';

// True when the client compiles against the types generated from the document at `path`.
function typedClientCompiles(path: string): boolean {
  const typed = checkTypedClient(readFileSync(path, 'utf8'));
  try {
    for (const { file, line, text } of typed.diagnostics) console.error(`${file}:${line}: ${text}`);
    console.log(`${basename(path)}: openapi-typescript types ${typed.diagnostics.length === 0 ? 'type-check the client' : 'do NOT type-check the client'}`);
    return typed.diagnostics.length === 0;
  } finally {
    typed.remove();
  }
}

const config = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
try {
  const files = Object.entries({
    'openapi.json': { bearerAuth: false, rateLimited: false },
    'openapi-token-rate-limit.json': { bearerAuth: true, rateLimited: true },
  }).map(([file, options]) => {
    const path = join(folder, file);
    writeFileSync(path, `${JSON.stringify(buildOpenApiDocument(options), null, 2)}\n`);
    return path;
  });
  const lint = spawnSync('npx', ['--yes', '@redocly/cli@2', 'lint', '--config', config, ...files], { stdio: 'inherit' });
  const typed = files.map(typedClientCompiles).every(Boolean);
  process.exitCode = lint.status === 0 && typed ? 0 : 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
