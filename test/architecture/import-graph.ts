import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/** One import of a source file: where it points, and the names it takes (empty for `* as`, side effects). */
export interface Import {
  /** The specifier as written: `./router.ts`, `../db/storage.ts`, `node:http`. */
  readonly specifier: string;
  /** The repository path it resolves to (`src/http/router.ts`), or the specifier itself when not relative. */
  readonly target: string;
  readonly names: readonly string[];
}

/** The import graph of a folder of TypeScript: every file (a repository path) with its imports. */
export type ImportGraph = ReadonlyMap<string, readonly Import[]>;

// A static `import … from '…'`, `export … from '…'`, a side-effect `import '…'`, or `import('…')`.
const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s*from\s*'([^']+)'/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import\s+'([^']+)'/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;

// Comments may quote code (`import … from 'svc-http-sqlite'` in src/index.ts); strings never hold `/*`.
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^[ \t]*\/\/.*$/gm, '');
}

// `{ a, type B, c as d }` → a, B, c: the names as the imported module exports them.
function importedNames(clause: string): string[] {
  const braces = /\{([\s\S]*)\}/.exec(clause);
  if (braces === null) return [];
  return (braces[1] ?? '')
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

function resolveTarget(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return posix.normalize(posix.join(posix.dirname(file), specifier));
}

/** Every import of one file's text; `file` is its repository path, so relative targets resolve against it. */
export function importsOf(file: string, text: string): Import[] {
  const code = withoutComments(text);
  const found: Import[] = [];
  for (const match of code.matchAll(STATIC_IMPORT)) {
    const specifier = match[2] as string;
    found.push({ specifier, target: resolveTarget(file, specifier), names: importedNames(match[1] as string) });
  }
  for (const match of [...code.matchAll(SIDE_EFFECT_IMPORT), ...code.matchAll(DYNAMIC_IMPORT)]) {
    const specifier = match[1] as string;
    found.push({ specifier, target: resolveTarget(file, specifier), names: [] });
  }
  return found;
}

/** Every `.ts` file under `root/folder`, as repository paths with forward slashes, sorted. */
export function sourceFiles(root: string, folder = 'src'): string[] {
  const files: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(join(root, folder));
  return files.sort();
}

/** The import graph of every `.ts` file under `root/src`. */
export function readImportGraph(root: string): ImportGraph {
  const graph = new Map<string, Import[]>();
  for (const file of sourceFiles(root)) graph.set(file, importsOf(file, readFileSync(join(root, file), 'utf8')));
  return graph;
}

/** The folder a repository path sits in, with a trailing slash (`src/http/`), or the file itself at `src/`'s top. */
export function partOf(file: string): string {
  const inside = file.split('/');
  return inside.length > 2 ? `${inside.slice(0, 2).join('/')}/` : file;
}

/** The number of lines of each file. */
export function lineCounts(root: string, files: readonly string[]): Map<string, number> {
  return new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8').split('\n').length - 1]));
}
