import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// openapi-typescript has its own package here, pinned and locked (with the TypeScript 5 it generates
// with), so it is no dependency of the service; its node_modules is installed on first use.
const GENERATOR = fileURLToPath(new URL('./typed-client/', import.meta.url));
// The repository's own compiler checks the client, run by this very Node: no npm script puts it on PATH.
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
// `--strict` and the stricter checks this repository uses; the last ones keep the client runnable by
// Node's type stripping. DOM's lib gives `fetch` and `Headers`, as in any browser or Node client.
const TSC_FLAGS = [
  '--noEmit', '--strict', '--exactOptionalPropertyTypes', '--noUncheckedIndexedAccess', '--target', 'es2023', '--lib', 'es2023,dom',
  '--module', 'nodenext', '--allowImportingTsExtensions', '--verbatimModuleSyntax', '--erasableSyntaxOnly', '--pretty', 'false',
];

/**
 * The client programs, each written against one API version: client.ts (2026-11-21: the example
 * client of the service's resources) with keys-client.ts (its key calls, against the keys document),
 * and client-2026-12-05.ts. call.ts, the typed calls they share, is copied beside each.
 */
export type ClientFile = 'client.ts' | 'keys-client.ts' | 'client-2026-12-05.ts';

/** The typed calls every program uses, checked with it. */
const SHARED = 'call.ts';

/** One deliberate type error: `from`, found exactly once in `source` (client.ts by default; or a file of `sources`), becomes `to`. */
export interface Mutant {
  name: string;
  from: string;
  to: string;
  source?: string;
}

/** One error tsc reported. */
export interface Diagnostic {
  file: string;
  line: number;
  text: string;
}

/** A temporary folder with the document, the generated api.ts, the client's files and their mutants, checked by tsc. */
export interface TypedClient {
  folder: string;
  /** Every tsc error, in the client's files (call.ts among them) and in the mutants. */
  diagnostics: Diagnostic[];
  /** Each mutant's file and the line it changed. */
  mutants: (Mutant & { file: string; line: number })[];
  remove(): void;
}

function installedVersion(folder: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

// Every package of the lock is installed at its locked version.
function lockIsInstalled(): boolean {
  const lock = JSON.parse(readFileSync(join(GENERATOR, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; optional?: boolean }> };
  return Object.entries(lock.packages).every(([path, entry]) => path === '' || entry.optional === true || installedVersion(join(GENERATOR, path)) === entry.version);
}

// `npm ci` in a staging folder, then one rename: two runs at once never see half a tree.
function install(): void {
  const staging = mkdtempSync(join(GENERATOR, '.install-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(GENERATOR, file), join(staging, file));
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', staging], { encoding: 'utf8' });
    if (npm.status !== 0) throw new Error(`npm ci of the OpenAPI generator failed (is the npm registry reachable?):\n${npm.stderr}`);
    if (lockIsInstalled()) return;
    rmSync(join(GENERATOR, 'node_modules'), { recursive: true, force: true });
    renameSync(join(staging, 'node_modules'), join(GENERATOR, 'node_modules'));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The pinned openapi-typescript CLI, installed from its lock when missing or different. */
export function generatorCli(): string {
  if (!lockIsInstalled()) install();
  return join(GENERATOR, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
}

/** Writes `document` (JSON text) to `folder`/openapi.json and generates `folder`/api.ts from it, with the defaults. */
export function generateTypes(document: string, folder: string): void {
  writeFileSync(join(folder, 'openapi.json'), document);
  const generated = spawnSync(process.execPath, [generatorCli(), 'openapi.json', '--output', 'api.ts'], { cwd: folder, encoding: 'utf8' });
  if (generated.status !== 0) throw new Error(`openapi-typescript failed:\n${generated.stdout}${generated.stderr}`);
}

function mutate(source: string, mutant: Mutant): { text: string; line: number } {
  const at = source.indexOf(mutant.from);
  if (at === -1 || source.includes(mutant.from, at + 1)) throw new Error(`mutant "${mutant.name}": its text must occur exactly once in ${mutant.source ?? 'client.ts'}`);
  const line = source.slice(0, at).split('\n').length;
  return { text: source.slice(0, at) + mutant.to + source.slice(at + mutant.from.length), line };
}

function parseDiagnostics(output: string): Diagnostic[] {
  return [...output.matchAll(/^([^\s(]+)\((\d+),\d+\): error (TS\d+: .*)$/gm)].map((match) => ({
    file: match[1] ?? '',
    line: Number(match[2]),
    text: match[3] ?? '',
  }));
}

/**
 * Generates the types of `document`, and type-checks with call.ts the programs `files` (client.ts, a
 * program written against the version of `document`, by default; keys-client.ts too with `keys`, for
 * the keys document), the programs of `sources` (file name → text) and one copy per mutant, in one tsc run.
 */
export function checkTypedClient(
  document: string,
  mutants: readonly Mutant[] = [],
  options: { keys?: boolean; files?: readonly ClientFile[]; sources?: Readonly<Record<string, string>> } = {},
): TypedClient {
  const folder = mkdtempSync(join(tmpdir(), 'svc-typed-client-'));
  const remove = (): void => rmSync(folder, { recursive: true, force: true });
  try {
    // ES modules, for tsc's `nodenext` and for Node when the test runs the client.
    writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
    generateTypes(document, folder);
    const clients: readonly ClientFile[] = options.files ?? (options.keys === true ? ['client.ts', 'keys-client.ts'] : ['client.ts']);
    writeFileSync(join(folder, SHARED), readFileSync(join(GENERATOR, SHARED), 'utf8'));
    const sources = new Map<string, string>([...clients.map((name): [string, string] => [name, readFileSync(join(GENERATOR, name), 'utf8')]), ...Object.entries(options.sources ?? {})]);
    const files = [...sources.keys()];
    for (const [name, source] of sources) writeFileSync(join(folder, name), source);
    const written = mutants.map((mutant, index) => {
      const source = sources.get(mutant.source ?? 'client.ts');
      if (source === undefined) throw new Error(`mutant "${mutant.name}": ${mutant.source ?? 'client.ts'} is not checked against this document`);
      const { text, line } = mutate(source, mutant);
      const file = `mutant-${index + 1}.ts`;
      writeFileSync(join(folder, file), text);
      return { ...mutant, file, line };
    });
    const tsc = spawnSync(process.execPath, [TSC, ...TSC_FLAGS, SHARED, ...files, ...written.map((m) => m.file)], { cwd: folder, encoding: 'utf8' });
    const diagnostics = parseDiagnostics(tsc.stdout);
    if (tsc.status !== 0 && diagnostics.length === 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
    return { folder, diagnostics, mutants: written, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
