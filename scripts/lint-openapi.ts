// `npm run lint:openapi`: writes the document as the service serves it (with the defaults, and with
// a token and rate limiting on, so every response is listed) and lints both with Redocly's
// recommended rules. The CLI is fetched by npx, so it is not a dependency of this package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/openapi/document.ts';

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
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
