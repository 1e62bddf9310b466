import { type ApiKeyRequest, ApiKeyValidationError, type ApiKeyView, createApiKey, keyVersionRules, wholeKeyMatch, listApiKeys, revokeApiKey } from '../api-keys.ts';
import { nameOfScope } from '../callers/scopes.ts';
import { redactCredentials } from '../callers/shapes.ts';
import type { Config } from '../config.ts';
import { closeDatabase, type Database } from '../db/engine.ts';
import { validateNewApiKey } from '../keys/validate.ts';
import { SchemaNotReadyError, openServiceDatabase } from '../server.ts';
import type { FieldError } from '../shared/validation.ts';
import { configOrExit } from './config-or-exit.ts';
import { parseCommand } from './keys-args.ts';

type Env = Record<string, string | undefined>;

const USAGE = `usage:
  node bin/keys.js create --name NAME --scopes SCOPE[,SCOPE...] [--expires-at TIME] [--api-version VERSION]
  node bin/keys.js list
  node bin/keys.js revoke ID|KEY
SCOPE is read, write or admin; TIME an RFC 3339 date-time in the future (2027-01-31T12:00:00Z);
VERSION the API version the key's requests get without Api-Version, one served (default: SVC_API_VERSION).
The database is SVC_DATABASE_URL (PostgreSQL) when set, else SVC_DB_PATH (SQLite, data/app.db).
create prints the new key on stdout, once: it is stored nowhere. revoke takes a key's id, or the whole key.
`;

// The CLI's words for the fields of POST /api/keys.
const FLAGS: Readonly<Record<string, string>> = { '/name': '--name', '/scopes': '--scopes', '/expiresAt': '--expires-at', '/apiVersion': '--api-version' };

/**
 * Writes one line of output. Every line but a new key's own goes through here, with anything shaped like
 * a key or an access token replaced by `[redacted]`: output lands in terminals and CI logs, so even a
 * key pasted as a name, or echoed by a database error, is not repeated there.
 */
function say(stream: NodeJS.WriteStream, line: string): void {
  stream.write(`${redactCredentials(line)}\n`);
}

function describeErrors(errors: readonly FieldError[]): string {
  return errors.map((error) => ('pointer' in error ? `${FLAGS[error.pointer.replace(/^(\/\w+).*$/, '$1')] ?? error.pointer}: ${error.detail}` : error.detail)).join('\n');
}

// Columns padded to their widest value (an id, `read,write,admin`, a time, a version), the name last: it may hold spaces.
const WIDTHS = [12, 16, 24, 24, 24, 10];
function row(cells: readonly string[]): string {
  return cells.map((cell, i) => cell.padEnd(WIDTHS[i] ?? 0)).join('  ');
}

function cellsOf(key: ApiKeyView): string[] {
  return [key.id, key.scopes.join(','), key.createdAt, key.expiresAt ?? '-', key.revokedAt ?? '-', key.apiVersion, key.name];
}

// Every key, page after page (test/cli/keys.test.ts lists more than one page).
async function list(db: Database): Promise<void> {
  let cursor: string | undefined;
  let header = false;
  do {
    const page = await listApiKeys(db, { limit: 200, ...(cursor === undefined ? {} : { cursor }) });
    if (!header && page.keys.length > 0) say(process.stdout, row(['ID', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED', 'VERSION', 'NAME']));
    header ||= page.keys.length > 0;
    for (const key of page.keys) say(process.stdout, row(cellsOf(key)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (!header) say(process.stderr, 'no API keys yet; make one with: node bin/keys.js create --name NAME --scopes admin');
}

/** A command ready to run: a create's request already validated. */
type Runnable = { kind: 'create'; request: ApiKeyRequest } | { kind: 'list' } | { kind: 'revoke'; id: string; key?: string };

async function create(db: Database, request: ApiKeyRequest, config: Config): Promise<number> {
  const created = await createApiKey(db, request, config.versions);
  // The one line never redacted: the key itself, alone on stdout.
  process.stdout.write(`${created.key}\n`);
  const expiry = created.expiresAt === null ? 'never expires' : `expires at ${created.expiresAt}`;
  say(process.stderr, `made API key ${created.id} (${created.name}; scopes ${created.scopes.join(', ')}; ${expiry}; API version ${created.apiVersion}).`);
  say(process.stderr, 'The key above is shown this once and stored nowhere: keep it in your secret store now.');
  return 0;
}

// By id, or by a whole key: that key's id, once the key is shown to be that key's (its digest is the one stored).
async function revoke(db: Database, id: string, key: string | undefined): Promise<number> {
  const advice = key === undefined ? '(the 12 characters after svc_; see node bin/keys.js list)' : '(the id of the key given)';
  const holds = key === undefined ? 'id' : await wholeKeyMatch(db, id, key);
  // Anyone can compute a checksum: a key made up around a real id is not that key, and revokes nothing.
  if (holds === 'other') {
    say(process.stderr, `the key given is not API key ${id}'s: its secret differs, so nothing was revoked (to revoke ${id} all the same: node bin/keys.js revoke ${id})`);
    return 1;
  }
  const revoked = holds === 'none' ? undefined : await revokeApiKey(db, id);
  if (revoked === undefined) {
    say(process.stderr, `no API key has the id ${id} ${advice}`);
    return 1;
  }
  say(process.stdout, `API key ${revoked.id} is revoked (since ${revoked.revokedAt ?? ''}); it stops working here at once and on every other process within 2 seconds`);
  return 0;
}

function run(db: Database, command: Runnable, config: Config): Promise<number> {
  if (command.kind === 'list') return list(db).then(() => 0);
  if (command.kind === 'create') return create(db, command.request, config);
  return revoke(db, command.id, command.key);
}

function usage(problem: string): number {
  say(process.stderr, `${problem}\n${USAGE.trimEnd()}`);
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
  // The settings first: a key pins SVC_API_VERSION unless told, and never a version past its sunset.
  const config = configOrExit(env);
  let command: Runnable;
  if (parsed.kind === 'create') {
    // Judged before the database is opened: a bad request is a usage error wherever the database is.
    const checked = validateNewApiKey(parsed.body, new Date(), keyVersionRules(config.versions));
    if (!checked.ok) return usage(describeErrors(checked.errors));
    const { name, scopes, expiresAt, apiVersion } = checked.value;
    command = { kind: 'create', request: { name, scopes: scopes.map(nameOfScope), expiresAt, apiVersion } };
  } else {
    command = parsed;
  }
  let db: Database;
  try {
    db = await openServiceDatabase(config);
  } catch (error) {
    say(process.stderr, error instanceof SchemaNotReadyError ? error.message : `cannot open the database: ${(error as Error).message}`);
    return 1;
  }
  try {
    return await run(db, command, config);
  } catch (error) {
    if (error instanceof ApiKeyValidationError) return usage(describeErrors(error.errors));
    say(process.stderr, `keys ${command.kind} failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await closeDatabase(db);
  }
}
