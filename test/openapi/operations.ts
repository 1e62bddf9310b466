// Reading a document's operations in the tests: each as `METHOD /path` with its operation object.
type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of `document`, named `METHOD /path`. */
export function operationsOf(document: Json): { key: string; operation: Json }[] {
  return Object.entries(document['paths'] as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({ key: `${method.toUpperCase()} ${path}`, operation: item[method] as Json })),
  );
}

/** The problem codes an operation documents: the names of the examples of its problem responses. */
export function problemCodesOf(operation: Json): string[] {
  return Object.values(operation['responses'] as Record<string, Json>).flatMap((response) => {
    const media = (response['content'] as Record<string, Json> | undefined)?.['application/problem+json'];
    return media === undefined ? [] : Object.keys(media['examples'] as Json);
  });
}

/** The response of `status` of an operation, or undefined. */
export function responseOf(operation: Json, status: number): Json | undefined {
  return (operation['responses'] as Record<string, Json>)[String(status)];
}
