import { parseArgs } from 'node:util';
import { KEY_ID_PATTERN, parseKey } from '../keys/format.ts';

/** What the command line of bin/keys.js asks for, or why it cannot be done (exit 2). */
export type Command =
  | { kind: 'create'; body: Record<string, unknown> }
  | { kind: 'list' }
  // `key`: the whole key the operator gave, when revoking by key rather than by id.
  | { kind: 'revoke'; id: string; key?: string }
  | { kind: 'help' }
  | { kind: 'usage'; problem: string };

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  'api-version': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type OptionName = keyof typeof OPTIONS;

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/**
 * `text` quoted, when it cannot be a credential: a command's or an option's name, at most 15 letters
 * (SVC_API_TOKEN has at least 16 characters; keys and tokens hold `_` or `.`). Anything else, which a
 * pasted secret would be, is never shown: messages land in terminals and CI logs.
 */
export function shown(text: string): string {
  return /^-{0,2}[A-Za-z][A-Za-z-]{0,14}$/.test(text) ? JSON.stringify(text) : '(not shown: it may be a secret)';
}

function isOption(name: string): name is OptionName {
  return Object.hasOwn(OPTIONS, name);
}

// parseArgs keeps the last of a repeated option, so `--scopes read --scopes admin` would quietly make an
// admin key: each option is judged here, token by token, and a repeated one is refused.
function readOptions(tokens: readonly Token[]): Map<OptionName, string | true> | string {
  const values = new Map<OptionName, string | true>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!isOption(token.name)) return `unknown option ${shown(token.rawName)}`;
    const flag = token.name === 'help' ? '--help' : `--${token.name}`;
    if (values.has(token.name)) return `${flag} is given more than once: give each option once`;
    if (OPTIONS[token.name].type === 'boolean') {
      if (token.value !== undefined) return `${flag} takes no value`;
      values.set(token.name, true);
      continue;
    }
    // As parseArgs's strict mode: `--name --scopes read` is a forgotten value, not a name.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      return `${flag} needs a value (one starting with - is written ${flag}=-…)`;
    }
    values.set(token.name, token.value);
  }
  return values;
}

// The body POST /api/keys would get: an option left out is a member left out.
function createBody(options: Map<OptionName, string | true>): Record<string, unknown> {
  const text = (name: OptionName): string | undefined => {
    const value = options.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  const body: Record<string, unknown> = { name: text('name'), scopes: text('scopes')?.split(','), expiresAt: text('expires-at'), apiVersion: text('api-version') };
  for (const field of Object.keys(body)) if (body[field] === undefined) delete body[field];
  return body;
}

// A key's id, or a whole key (a leaked key pasted as it was found): judged by its shape and checksum alone.
function revokeTarget(argument: string): Command {
  if (KEY_ID_PATTERN.test(argument)) return { kind: 'revoke', id: argument };
  const id = parseKey(argument);
  if (id !== null) return { kind: 'revoke', id, key: argument };
  const problem = argument.startsWith('svc_')
    ? 'the key given is not a whole key: its length, characters or checksum are wrong (a character lost or mistyped?); it is not shown'
    : 'revoke takes a key\'s id (the 12 characters after svc_) or a whole key; the argument is neither, and is not shown';
  return { kind: 'usage', problem };
}

/** Reads bin/keys.js's arguments; no message it makes shows an argument that could be a secret. */
export function parseCommand(args: readonly string[]): Command {
  const { positionals, tokens } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const options = readOptions(tokens);
  if (typeof options === 'string') return { kind: 'usage', problem: options };
  const [command, ...rest] = positionals;
  if (options.has('help')) return { kind: 'help' };
  if (command === 'create' && rest.length === 0) return { kind: 'create', body: createBody(options) };
  if (command === 'list' && rest.length === 0 && options.size === 0) return { kind: 'list' };
  if (command === 'revoke' && rest.length === 1 && options.size === 0) return revokeTarget(rest[0] as string);
  if (command === undefined) return { kind: 'usage', problem: 'a command is required' };
  if (!['create', 'list', 'revoke'].includes(command)) return { kind: 'usage', problem: `unknown command ${shown(command)}` };
  return { kind: 'usage', problem: `wrong arguments for ${command}` };
}
