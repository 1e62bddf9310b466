import { parseArgs } from 'node:util';
import { type ApiKeyRequest, ApiKeyValidationError, type ApiKeyView, createApiKey, listApiKeys, revokeApiKey } from '../api-keys.ts';
import { nameOfScope } from '../callers/scopes.ts';
import { closeDatabase, type Database } from '../db/engine.ts';
import { KEY_ID_PATTERN } from '../keys/format.ts';
import { validateNewApiKey } from '../keys/validate.ts';
import { SchemaNotReadyError, openServiceDatabase } from '../server.ts';
import type { FieldError } from '../shared/validation.ts';
import { configOrExit } from './config-or-exit.ts';

type Env = Record<string, string | undefined>;

const USAGE = `usage:
  node bin/keys.js create --name NAME --scopes SCOPE[,SCOPE...] [--expires-at TIME]
  node bin/keys.js list
  node bin/keys.js revoke ID
SCOPE is read, write or admin; TIME an RFC 3339 date-time in the future (2027-01-31T12:00:00Z).
The database is SVC_DATABASE_URL (PostgreSQL) when set, else SVC_DB_PATH (SQLite, data/app.db).
create prints the new key on stdout, once: it is stored nowhere.
`;

/** What the command line asks for, or why it cannot be done (exit 2). */
type Command =
  | { kind: 'create'; body: Record<string, unknown> }
  | { kind: 'list' }
  | { kind: 'revoke'; id: string }
  | { kind: 'help' }
  | { kind: 'usage'; problem: string };

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

// The CLI's words for the fields of POST /api/keys.
const FLAGS: Readonly<Record<string, string>> = { '/name': '--name', '/scopes': '--scopes', '/expiresAt': '--expires-at' };

function parseCommand(args: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: 'usage', problem: (error as Error).message };
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help === true) return { kind: 'help' };
  const flags = Object.keys(values);
  if (command === 'create' && rest.length === 0) {
    // The body POST /api/keys would get: an option left out is a member left out.
    const { name, scopes, 'expires-at': expiresAt } = values;
    const body: Record<string, unknown> = { name, scopes: scopes?.split(','), expiresAt };
    for (const field of Object.keys(body)) if (body[field] === undefined) delete body[field];
    return { kind: 'create', body };
  }
  if (command === 'list' && rest.length === 0 && flags.length === 0) return { kind: 'list' };
  if (command === 'revoke' && rest.length === 1 && flags.length === 0) return { kind: 'revoke', id: rest[0] as string };
  if (command === undefined) return { kind: 'usage', problem: 'a command is required' };
  if (!['create', 'list', 'revoke'].includes(command)) return { kind: 'usage', problem: `unknown command ${JSON.stringify(command)}` };
  return { kind: 'usage', problem: `wrong arguments for ${command}` };
}

function describeErrors(errors: readonly FieldError[]): string {
  return errors.map((error) => ('pointer' in error ? `${FLAGS[error.pointer.replace(/^(\/\w+).*$/, '$1')] ?? error.pointer}: ${error.detail}` : error.detail)).join('\n');
}

// Columns padded to their widest value (an id, `read,write,admin`, a time), the name last: it may hold spaces.
const WIDTHS = [12, 16, 24, 24, 24];
function row(cells: readonly string[]): string {
  return cells.map((cell, i) => cell.padEnd(WIDTHS[i] ?? 0)).join('  ');
}

function cellsOf(key: ApiKeyView): string[] {
  return [key.id, key.scopes.join(','), key.createdAt, key.expiresAt ?? '-', key.revokedAt ?? '-', key.name];
}

async function list(db: Database): Promise<void> {
  let cursor: string | undefined;
  let header = false;
  do {
    const page = await listApiKeys(db, { limit: 200, ...(cursor === undefined ? {} : { cursor }) });
    if (!header && page.keys.length > 0) process.stdout.write(`${row(['ID', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED', 'NAME'])}\n`);
    header ||= page.keys.length > 0;
    for (const key of page.keys) process.stdout.write(`${row(cellsOf(key))}\n`);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (!header) process.stderr.write('no API keys yet; make one with: node bin/keys.js create --name NAME --scopes admin\n');
}

/** A command ready to run: a create's request already validated. */
type Runnable = { kind: 'create'; request: ApiKeyRequest } | { kind: 'list' } | { kind: 'revoke'; id: string };

async function run(db: Database, command: Runnable): Promise<number> {
  if (command.kind === 'list') {
    await list(db);
    return 0;
  }
  if (command.kind === 'create') {
    const created = await createApiKey(db, command.request);
    process.stdout.write(`${created.key}\n`);
    const expiry = created.expiresAt === null ? 'never expires' : `expires at ${created.expiresAt}`;
    process.stderr.write(`made API key ${created.id} (${created.name}; scopes ${created.scopes.join(', ')}; ${expiry}).\n`);
    process.stderr.write('The key above is shown this once and stored nowhere: keep it in your secret store now.\n');
    return 0;
  }
  const revoked = KEY_ID_PATTERN.test(command.id) ? await revokeApiKey(db, command.id) : undefined;
  if (revoked === undefined) {
    process.stderr.write(`no API key has the id ${JSON.stringify(command.id)} (the 12 characters after svc_; see node bin/keys.js list)\n`);
    return 1;
  }
  process.stdout.write(`API key ${revoked.id} is revoked (since ${revoked.revokedAt ?? ''}); it stops working here at once and on every other process within 2 seconds\n`);
  return 0;
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}`);
  return 2;
}

/** `node bin/keys.js create|list|revoke …`; resolves to the exit status: 0, 1 (refused or failed), 2 (usage). */
export async function main(args: readonly string[], env: Env): Promise<number> {
  const parsed = parseCommand(args);
  if (parsed.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === 'usage') return usage(parsed.problem);
  let command: Runnable;
  if (parsed.kind === 'create') {
    // Judged before the database is opened: a bad request is a usage error wherever the database is.
    const checked = validateNewApiKey(parsed.body, new Date());
    if (!checked.ok) return usage(describeErrors(checked.errors));
    const { name, scopes, expiresAt } = checked.value;
    command = { kind: 'create', request: { name, scopes: scopes.map(nameOfScope), expiresAt } };
  } else {
    command = parsed;
  }
  const config = configOrExit(env);
  let db: Database;
  try {
    db = await openServiceDatabase(config);
  } catch (error) {
    process.stderr.write(`${error instanceof SchemaNotReadyError ? error.message : `cannot open the database: ${(error as Error).message}`}\n`);
    return 1;
  }
  try {
    return await run(db, command);
  } catch (error) {
    if (error instanceof ApiKeyValidationError) return usage(describeErrors(error.errors));
    process.stderr.write(`keys ${command.kind} failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await closeDatabase(db);
  }
}
