// A small typed program per resource, written from its description: it creates, reads, changes,
// lists (by each filter) and deletes one, typed only by what openapi-typescript generates from the
// served document. With it, mutants derived from the same description (a value of the wrong type, an
// unknown or missing member, a value outside an enum, a status or a refusal the operation does not
// have) that must not compile. So the generated types are checked for every resource, a new one too.
import type { Resource } from '../../src/resources/resource.ts';
import { allowedChange, refusedChanges } from '../support/change-samples.ts';
import { fieldsIn, filtersOf } from '../support/resources.ts';
import type { Mutant } from './generated-types.ts';

/** A generated program: its file name, its source, and the mutants of it. */
export interface DescribedClient {
  readonly resource: Resource;
  readonly file: string;
  readonly source: string;
  readonly mutants: Mutant[];
}

/** What a program's `run` answers, as the live test reads it. */
export interface DescribedReport {
  body: Record<string, unknown>;
  made: Record<string, unknown>;
  read: Record<string, unknown>;
  patch: Record<string, unknown>;
  changed: Record<string, unknown>;
  filtered: Record<string, Record<string, unknown>[]>;
  deleted: number;
  gone: number;
}

const json = (value: unknown): string => JSON.stringify(value);

// The program's lines; each one a mutant changes is unique in it.
function lines(resource: Resource, body: Record<string, unknown>, patch: Record<string, unknown>): string[] {
  const { path, title } = resource;
  const item = `${path}/{id}`;
  const filters = filtersOf(resource);
  const filtered = filters.map(({ field, value }) =>
    `  filtered[${json(field)}] = expect(await api.call('get', '${path}', { params: { query: { limit: 200, ${field}: ${value} } } }), 200);`);
  const rules = refusedChanges(resource).map(({ rule }, i) =>
    `  const refused${i}: ${json(rule.refusal.code)} = expect(await api.call('patch', '${item}', { params: { path: { id } }, body: patch }), ${rule.refusal.status}).code;`);
  return [
    "import type { components } from './api.ts';",
    "import { createClient, expect } from './call.ts';",
    "import { API_VERSION } from './client.ts';",
    "type Schemas = components['schemas'];",
    'export async function run(base: string, credential?: string) {',
    '  const api = createClient(base, API_VERSION, credential);',
    `  const body: Schemas['New${title}'] = ${json(body)};`,
    `  const made: Schemas['${title}'] = expect(await api.call('post', '${path}', { body }), 201);`,
    '  const id: number = made.id;',
    `  const read = expect(await api.call('get', '${item}', { params: { path: { id: made.id } } }), 200);`,
    `  const patch: Schemas['${title}Patch'] = ${json(patch)};`,
    `  const changed = expect(await api.call('patch', '${item}', { params: { path: { id } }, body: patch, contentType: 'application/merge-patch+json' }), 200);`,
    `  const filtered: Record<string, Schemas['${title}'][]> = {};`,
    ...filtered,
    `  const deletion = await api.call('delete', '${item}', { params: { path: { id } } });`,
    '  expect(deletion, 204);',
    `  const gone = (await api.call('get', '${item}', { params: { path: { id } } })).status;`,
    '  return { body, made, read, patch, changed, filtered, deleted: deletion.status, gone };',
    '}',
    '// Compiled, never run: what the operations may refuse, as the types narrow it.',
    'export async function refusals(base: string, id: number) {',
    '  const api = createClient(base, API_VERSION);',
    `  const patch: Schemas['${title}Patch'] = ${json(patch)};`,
    `  const notFound: 'not_found' = expect(await api.call('get', '${item}', { params: { path: { id } } }), 404).code;`,
    ...rules,
    '  return notFound;',
    '}',
  ];
}

// A value of another JSON type than the field takes (as the default version has it, the client's).
function wrongType(resource: Resource, field: string): unknown {
  const spec = fieldsIn(resource)[field];
  if (spec?.kind === 'object') return 'x';
  return spec?.type === 'text' ? 42 : '1';
}

function mutantsOf(resource: Resource, file: string, source: string, body: Record<string, unknown>, patch: Record<string, unknown>): Mutant[] {
  const { path, title, plural } = resource;
  const bodyLine = `const body: Schemas['New${title}'] = ${json(body)};`;
  const patchLine = `const patch: Schemas['${title}Patch'] = ${json(patch)};\n  const changed`;
  const mutant = (name: string, from: string, to: string): Mutant => ({ name: `${plural}: ${name}`, from, to, source: file });
  const withBody = (name: string, value: Record<string, unknown>): Mutant => mutant(name, bodyLine, `const body: Schemas['New${title}'] = ${json(value)};`);
  const fields = Object.entries(fieldsIn(resource));
  const [first] = fields;
  const mutants: Mutant[] = [
    ...fields.map(([field]) => withBody(`${field} of another type in a create`, { ...body, [field]: wrongType(resource, field) })),
    ...fields.filter(([, field]) => field.required && field.default === undefined).map(([field]) =>
      withBody(`a create without its required ${field}`, Object.fromEntries(Object.entries(body).filter(([name]) => name !== field)))),
    ...fields.filter(([, field]) => field.kind === 'scalar' && field.choices !== undefined).map(([field, spec]) =>
      withBody(`${field} outside its enum`, { ...body, [field]: Math.max(...(spec.kind === 'scalar' ? (spec.choices ?? []) : [])) + 1 })),
    withBody('an unknown member in a create', { ...body, notAField: 1 }),
    mutant('an unknown member in a patch', patchLine, `const patch: Schemas['${title}Patch'] = ${json({ ...patch, notAField: 1 })};\n  const changed`),
    mutant('a method the path does not have', `api.call('post', '${path}'`, `api.call('put', '${path}'`),
    mutant('an id that is not a number', 'path: { id: made.id }', 'path: { id: String(made.id) }'),
    mutant('a status a create does not answer', '{ body }), 201)', '{ body }), 200)'),
    mutant('a member its representation does not have', 'const id: number = made.id;', 'const id: number = made.notAField;'),
  ];
  if (first !== undefined) mutants.push(mutant('null in a patch: no field can be removed', patchLine, `const patch: Schemas['${title}Patch'] = ${json({ ...patch, [first[0]]: null })};\n  const changed`));
  for (const { field, value } of filtersOf(resource)) mutants.push(mutant(`the ${field} filter as a string`, `${field}: ${value} }`, `${field}: '${value}' }`));
  // A 409 is documented where a rule of the resource refuses a change, with that rule's code only.
  const refusals = refusedChanges(resource);
  if (refusals.length === 0) mutants.push(mutant('a 409 from a change no rule of its own refuses', "contentType: 'application/merge-patch+json' }), 200)", "contentType: 'application/merge-patch+json' }), 409)"));
  refusals.forEach(({ rule }, i) => mutants.push(mutant(`a code the ${rule.refusal.status} of its patch does not have`, `const refused${i}: ${json(rule.refusal.code)}`, `const refused${i}: 'idempotency_key_in_use'`)));
  for (const found of mutants) if (source.split(found.from).length !== 2) throw new Error(`${found.name}: its text must occur exactly once in ${file}`);
  return mutants;
}

/** The typed program of `resource` and its mutants. */
export function describedClient(resource: Resource): DescribedClient {
  const { body, patch } = allowedChange(resource);
  const file = `described-${resource.plural}.ts`;
  const source = `${lines(resource, body, patch).join('\n')}\n`;
  return { resource, file, source, mutants: mutantsOf(resource, file, source, body, patch) };
}
