import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// What the build reads besides src/: a change to either makes every output stale.
const BUILD_CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(dir, path)).isFile());
}

/**
 * Why `dist/` is not the build of `src/` as it is now (a compiled file missing, left over from a
 * removed source, or older than its source or the build settings), or null when it is. Tests that
 * import the package by name or pack it run on `dist/`; `npm run test:suite` and `test:postgres`
 * build first, and this catches a run that did not.
 */
export function staleBuildReason(root: string = ROOT): string | null {
  const src = join(root, 'src');
  const dist = join(root, 'dist');
  if (!existsSync(dist)) return 'there is no dist/';
  const configsChangedAt = Math.max(...BUILD_CONFIGS.map((name) => statSync(join(root, name)).mtimeMs));
  const sources = filesUnder(src).filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
  for (const source of sources) {
    const compiled = join(dist, source.replace(/\.ts$/, '.js'));
    if (!existsSync(compiled)) return `dist/ has no build of src/${source}`;
    const builtAt = statSync(compiled).mtimeMs;
    if (builtAt < statSync(join(src, source)).mtimeMs) return `src/${source} changed after dist/ was built`;
    if (builtAt < configsChangedAt) return `the build settings changed after dist/${relative(dist, compiled)} was built`;
  }
  const expected = new Set(sources.map((source) => source.replace(/\.ts$/, '.js')));
  const leftOver = filesUnder(dist).find((path) => path.endsWith('.js') && !expected.has(path));
  return leftOver === undefined ? null : `dist/${leftOver} has no source in src/`;
}
