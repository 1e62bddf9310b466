import type { Scope } from '../callers/scopes.ts';

/** Who may call a route: anyone (`open`), or, when SVC_AUTH is on, a caller with this scope. */
export type Access = 'open' | Scope;

/** Path parameters by name, e.g. `{ id: "17" }` for `/api/orders/{id}`. */
export type Params = Readonly<Record<string, string>>;

/** What a path and method resolve to; `pattern` is the registered pattern (a metrics label, never the raw path). */
export type RouteMatch<H> =
  | { kind: 'found'; handler: H; access: Access; params: Params; pattern: string }
  | { kind: 'method_not_allowed'; allow: readonly string[]; pattern: string }
  | { kind: 'not_found' };

/** A method + path router: `{name}` segments match one non-empty path segment. */
export interface Router<H> {
  /** Registers `handler` for `method` on `pattern`, callable by whoever `access` names. */
  add(method: string, pattern: string, access: Access, handler: H): void;
  match(method: string, path: string): RouteMatch<H>;
  /** The methods `path` serves (HEAD where GET is), in the order added; none for an unknown path. */
  methodsAt(path: string): readonly string[];
  /** Every registered method and pattern with its access, in the order added (HEAD not listed). */
  routes(): readonly { method: string; pattern: string; access: Access }[];
}

interface Route<H> {
  pattern: string;
  segments: readonly string[];
  handlers: Map<string, { access: Access; handler: H }>;
}

const NOT_FOUND = { kind: 'not_found' } as const;

function matchSegments(pattern: readonly string[], path: readonly string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] ?? '';
    const actual = path[i] ?? '';
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return null;
      params[expected.slice(1, -1)] = actual;
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}

/** Creates a router; HEAD is answered by the GET handler of the same path. */
export function createRouter<H>(): Router<H> {
  const table: Route<H>[] = [];
  const added: { method: string; pattern: string; access: Access }[] = [];
  return {
    add(method, pattern, access, handler) {
      const segments = pattern.split('/');
      let route = table.find((r) => r.segments.join('/') === segments.join('/'));
      if (route === undefined) {
        route = { pattern, segments, handlers: new Map() };
        table.push(route);
      }
      route.handlers.set(method, { access, handler });
      added.push({ method, pattern, access });
    },
    match(method, path) {
      const pathSegments = path.split('/');
      // Every route whose shape fits contributes to Allow, so a static route never hides
      // another method of a parameter route that matches the same path. (Made only for a 405:
      // a request that is served allocates no set.)
      let other: { pattern: string; allow: Set<string> } | undefined;
      for (const route of table) {
        const params = matchSegments(route.segments, pathSegments);
        if (params === null) continue;
        const found = route.handlers.get(method) ?? (method === 'HEAD' ? route.handlers.get('GET') : undefined);
        if (found !== undefined) return { kind: 'found', handler: found.handler, access: found.access, params, pattern: route.pattern };
        other ??= { pattern: route.pattern, allow: new Set<string>() };
        for (const allowed of route.handlers.keys()) other.allow.add(allowed);
        if (route.handlers.has('GET')) other.allow.add('HEAD');
      }
      return other === undefined ? NOT_FOUND : { kind: 'method_not_allowed', allow: [...other.allow], pattern: other.pattern };
    },
    methodsAt(path) {
      const pathSegments = path.split('/');
      const methods = new Set<string>();
      for (const route of table) {
        if (matchSegments(route.segments, pathSegments) === null) continue;
        for (const method of route.handlers.keys()) methods.add(method);
        if (route.handlers.has('GET')) methods.add('HEAD');
      }
      return [...methods];
    },
    routes: () => added,
  };
}
