import { type Json, objectAt, stringAt } from './html.ts';

/** One parameter of an operation, its `$ref` resolved. */
export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly description: string;
  readonly schema: Json;
}

/** A request or response body in one media type, with its examples by name. */
export interface Media {
  readonly type: string;
  readonly schema: Json;
  readonly examples: readonly { readonly name: string; readonly summary: string; readonly value: unknown }[];
}

/** One documented status of an operation. */
export interface Outcome {
  readonly status: string;
  readonly description: string;
  readonly headers: readonly string[];
  readonly media: readonly Media[];
}

/** One operation of the document, as the page shows it. */
export interface Operation {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters: readonly Parameter[];
  readonly body: { readonly required: boolean; readonly description: string; readonly media: readonly Media[] } | null;
  readonly outcomes: readonly Outcome[];
  /** The security schemes it names (empty: open). */
  readonly security: readonly string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The object a `$ref` of the document points at (local references only), or `node` itself. */
export function resolve(root: Json, node: unknown): Json {
  const target = stringAt(objectAt(node)['$ref']);
  if (!target.startsWith('#/')) return objectAt(node);
  let at: unknown = root;
  for (const part of target.slice(2).split('/')) at = objectAt(at)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return objectAt(at);
}

// Examples: the media's own `example`, its named `examples`, else the schema's first example.
function mediaOf(root: Json, content: unknown): Media[] {
  return Object.entries(objectAt(content)).map(([type, value]) => {
    const media = objectAt(value);
    const schema = objectAt(media['schema']);
    const named = Object.entries(objectAt(media['examples'])).map(([name, example]) => {
      const resolved = resolve(root, example);
      return { name, summary: stringAt(resolved['summary']), value: resolved['value'] };
    });
    const schemaExamples = resolve(root, schema)['examples'];
    let examples = named;
    if (media['example'] !== undefined) examples = [{ name: 'example', summary: '', value: media['example'] }];
    else if (named.length === 0 && Array.isArray(schemaExamples) && schemaExamples.length > 0) examples = [{ name: 'example', summary: '', value: schemaExamples[0] }];
    return { type, schema, examples };
  });
}

function parameterOf(root: Json, node: unknown): Parameter {
  const parameter = resolve(root, node);
  const place = stringAt(parameter['in']);
  return {
    name: stringAt(parameter['name']),
    in: place === 'path' || place === 'header' ? place : 'query',
    required: parameter['required'] === true,
    description: stringAt(parameter['description']),
    schema: objectAt(parameter['schema']),
  };
}

function operationOf(root: Json, path: string, method: string, item: Json, node: Json): Operation {
  const parameters = [...(Array.isArray(item['parameters']) ? item['parameters'] : []), ...(Array.isArray(node['parameters']) ? node['parameters'] : [])];
  const body = resolve(root, node['requestBody']);
  const outcomes = Object.entries(objectAt(node['responses'])).map(([status, value]) => {
    const response = resolve(root, value);
    return { status, description: stringAt(response['description']), headers: Object.keys(objectAt(response['headers'])), media: mediaOf(root, response['content']) };
  });
  const security = (Array.isArray(node['security']) ? node['security'] : []).flatMap((requirement) => Object.keys(objectAt(requirement)));
  return {
    id: stringAt(node['operationId']) || `${method}-${path}`,
    method: method.toUpperCase(),
    path,
    tag: stringAt((Array.isArray(node['tags']) ? node['tags'] : [])[0]) || 'other',
    summary: stringAt(node['summary']),
    description: stringAt(node['description']),
    parameters: parameters.map((parameter) => parameterOf(root, parameter)),
    body: node['requestBody'] === undefined ? null : { required: body['required'] === true, description: stringAt(body['description']), media: mediaOf(root, body['content']) },
    outcomes,
    security,
  };
}

/** Every operation of an OpenAPI 3.1 document, in the document's order. */
export function operationsOf(root: Json): Operation[] {
  return Object.entries(objectAt(root['paths'])).flatMap(([path, value]) => {
    const item = objectAt(value);
    return METHODS.filter((method) => item[method] !== undefined).map((method) => operationOf(root, path, method, item, objectAt(item[method])));
  });
}
