// The import rules of docs/architecture.md, as data: which part of src/ each folder is, what each rule
// forbids, and the known exceptions, each with the change that would remove it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Import, ImportGraph } from './import-graph.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
// The machinery every resource is described with and served by (describeResource, the generic routes, use cases, presenter).
const MACHINERY = 'src/resources/';

/**
 * The folder of each described resource (`src/<plural>/`): every folder of src/ that holds a
 * `resource.ts`, found rather than listed, so that adding a resource does not touch these rules.
 */
export const DESCRIBED_FOLDERS: readonly string[] = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(SRC, entry.name, 'resource.ts')))
  .map((entry) => `src/${entry.name}/`)
  .filter((folder) => folder !== MACHINERY);

/** Every top-level folder (with its trailing slash) and file of src/, by the part of the house it is. */
export const PARTS = {
  /** Starts a process or exports the package: may plug in anything. */
  entries: ['src/cli/', 'src/server.ts', 'src/index.ts', 'src/api-keys.ts', 'src/webhook-deliveries.ts'],
  /** The one place that wires the request path, and the one registration line of each resource (src/registry.ts). */
  wiring: ['src/app.ts', 'src/config.ts', 'src/registry.ts'],
  /** The core a reader needs first: the request path, the resources, SQLite. */
  http: ['src/http/'],
  /** The machinery of resources, readiness, and each described resource's folder (DESCRIBED_FOLDERS). */
  resources: [MACHINERY, 'src/readiness/', ...DESCRIBED_FOLDERS],
  storage: ['src/db/', 'src/sqlite/'],
  /** Used by all of the core; src/callers/ is the seam every kind of credential implements (who calls, what it may do). */
  support: ['src/shared/', 'src/idempotency/', 'src/log/', 'src/core-settings.ts', 'src/callers/', 'src/versions/'],
  /** What a reader can leave for later: the second engine, metrics, the document generator and its HTML page, workers, API keys, access tokens, events, webhooks. */
  later: ['src/postgres/', 'src/metrics/', 'src/openapi/', 'src/docs-page/', 'src/workers/', 'src/keys/', 'src/tokens/', 'src/events/', 'src/webhooks/'],
};

/** A part of the house: entries, wiring, the four of the core, or later. */
export type Part = keyof typeof PARTS;
const CORE: readonly Part[] = ['http', 'resources', 'storage', 'support'];
// Folders laid out as a resource (routes, use cases, repository…), core or later: none may know the engine.
const RESOURCE_FOLDERS = [...PARTS.resources, 'src/keys/', 'src/events/'];
const ENGINES = ['src/sqlite/', 'src/postgres/'];
const STORAGE = ['src/db/', ...ENGINES];
// The two files of the seam that name the engines: which storage to build, which migrations to run.
const ENGINE_SWITCH = ['src/db/engine.ts', 'src/db/migrate.ts'];
const HTTP_MODULES = ['node:http', 'node:https', 'node:http2'];
// What an engine may know of the parts it stores: their description, their types, their repository interface, their rows.
const CONTRACT_FILES = ['resource.ts', 'model.ts', 'repository.ts', 'rows.ts'];
const REQUEST_PATH_FILES = ['routes.ts', 'use-cases.ts', 'presenter.ts', 'validate.ts'];

const fileName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const folderOf = (path: string): string => path.slice(0, path.lastIndexOf('/') + 1);
const within = (path: string, places: readonly string[]): boolean =>
  places.some((place) => (place.endsWith('/') ? path.startsWith(place) : path === place));
const inPart = (path: string, ...parts: Part[]): boolean => parts.some((part) => within(path, PARTS[part]));

/** The part of a source file, or undefined for a folder no part names yet. */
export function partOfFile(path: string): Part | undefined {
  return (Object.keys(PARTS) as Part[]).find((part) => within(path, PARTS[part]));
}

/** One rule: `breaks` says whether an import of `from` breaks it. */
export interface Rule {
  readonly id: string;
  readonly says: string;
  readonly breaks: (from: string, imported: Import) => boolean;
}

/** The rules, numbered as in docs/architecture.md. */
export const RULES: readonly Rule[] = [
  {
    id: '1 storage-knows-no-http',
    says: 'storage (src/db/, src/sqlite/, src/postgres/) never imports src/http/, src/app.ts, node:http, nor a routes, use-cases, presenter or validate file',
    breaks: (from, { target }) =>
      within(from, STORAGE) &&
      (within(target, ['src/http/', 'src/app.ts', ...HTTP_MODULES]) || (target.startsWith('src/') && REQUEST_PATH_FILES.includes(fileName(target)))),
  },
  {
    id: '2 resources-know-no-engine',
    says: 'a resource folder (src/keys/ and src/events/ too) never imports an engine folder, the engine switch, nor node:http: it knows storage only by src/db/storage.ts',
    breaks: (from, { target }) => within(from, RESOURCE_FOLDERS) && within(target, [...ENGINES, ...ENGINE_SWITCH, ...HTTP_MODULES]),
  },
  {
    id: '3 use-cases-know-no-http',
    says: 'a use-cases.ts never imports node:http nor src/http/',
    breaks: (from, { target }) => fileName(from) === 'use-cases.ts' && within(target, ['src/http/', ...HTTP_MODULES]),
  },
  {
    id: '4 engines-apart',
    says: 'an engine folder is imported only by itself, the engine switch (src/db/engine.ts, src/db/migrate.ts) and the entries',
    breaks: (from, { target }) =>
      ENGINES.some((engine) => target.startsWith(engine) && !from.startsWith(engine)) && !within(from, [...ENGINE_SWITCH, ...PARTS.entries]),
  },
  {
    id: '5 one-place-wires',
    says:
      'only src/app.ts imports a routes.ts; a use-cases.ts is imported only by src/app.ts, its own folder\'s routes.ts and the entries; ' +
      'createStorage only by src/app.ts and the entries; an engine\'s storage.ts only by src/db/engine.ts; src/app.ts only by the entries; ' +
      'src/registry.ts only by src/app.ts and the entries (every other part takes the resources it is given)',
    breaks: (from, { target, names }) => {
      const name = fileName(target);
      if (name === 'routes.ts' && target.startsWith('src/')) return from !== 'src/app.ts';
      if (name === 'use-cases.ts' && target.startsWith('src/')) {
        return !inPart(from, 'wiring', 'entries') && from !== `${folderOf(target)}routes.ts`;
      }
      if (target === 'src/db/engine.ts' && names.includes('createStorage')) return !inPart(from, 'wiring', 'entries');
      if (ENGINES.some((engine) => target === `${engine}storage.ts`)) return from !== 'src/db/engine.ts';
      if (target === 'src/app.ts') return !inPart(from, 'entries');
      if (target === 'src/registry.ts') return !inPart(from, 'wiring', 'entries');
      return false;
    },
  },
  {
    id: '6 core-before-later',
    says:
      'the core (src/http/, resources, src/db/, src/sqlite/, support) never imports a later part; two openings: the engine switch ' +
      'may import src/postgres/, and storage may import any part\'s resource.ts, model.ts, repository.ts and rows.ts',
    breaks: (from, { target }) => {
      if (!CORE.some((part) => inPart(from, part)) || !inPart(target, 'later')) return false;
      if (within(from, ENGINE_SWITCH) && target.startsWith('src/postgres/')) return false;
      return !(within(from, STORAGE) && CONTRACT_FILES.includes(fileName(target)));
    },
  },
  {
    id: '7 imports-stay-close',
    says: 'src/ imports only node: built-ins and its own .ts files, never climbing more than one folder (../x.ts, not ../../x.ts)',
    breaks: (_from, { specifier, target }) =>
      specifier.startsWith('node:') ? false : !/^\.\.?\/(?!\.\.\/)/.test(specifier) || !specifier.endsWith('.ts') || !target.startsWith('src/'),
  },
];

/** An import that breaks a rule today, listed so that it stays visible until the change it names is made. */
export interface KnownException {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
  readonly change: string;
}

/** Every import that breaks a rule today; a test fails when one is fixed and still listed. */
export const KNOWN_EXCEPTIONS: readonly KnownException[] = [];

/** One import that breaks one rule. */
export interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

/** Every (rule, importer, imported) that breaks a rule in `graph`, known exceptions included. */
export function violations(graph: ImportGraph, rules: readonly Rule[] = RULES): Violation[] {
  const found: Violation[] = [];
  for (const [from, imports] of graph) {
    for (const imported of imports) {
      for (const rule of rules) if (rule.breaks(from, imported)) found.push({ rule: rule.id, from, to: imported.target });
    }
  }
  return found;
}

/** The same import listed under the same rule. */
export const sameViolation = (a: Violation, b: Violation): boolean => a.rule === b.rule && a.from === b.from && a.to === b.to;
