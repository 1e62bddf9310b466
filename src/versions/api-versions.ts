import type { FieldTable, Resource } from '../resources/resource.ts';
import type { Body, Change, Upgrading, VersionSpec } from './model.ts';

/** When versions stop being served: SVC_API_SUNSET's moments (ms), and when this process learnt them (for Deprecation). */
export interface Sunsets {
  readonly at: ReadonlyMap<string, number>;
  /** Unix seconds when this process started with these sunsets (RFC 9745's Deprecation date). */
  readonly announcedAt: number;
}

/** One version as a request sees it: how answers of the newest become its own, and requests of its own the newest's. */
export interface VersionView {
  readonly id: string;
  readonly summary: string;
  /** The first version's view: the API as it was before versions existed. */
  readonly first: VersionView;
  /** When it stops being served (ms), or null. */
  readonly sunsetAt: number | null;
  /** Its response headers (name, value, …): Api-Version and Vary, and Deprecation, Sunset and Link while it is going away. */
  readonly headers: readonly string[];
  /** The newest representation of `kind` as this version shows it. */
  downgrade(kind: string, body: Body): unknown;
  /** A validated request body of this version, as the newest takes it. */
  upgrade(kind: string, body: Body, upgrading: Upgrading): Body;
  /** Whether this version has `member` in `kind` (a member a later version added is absent here). */
  has(kind: string, member: string): boolean;
  /** `resource`'s fields in this version: what its requests are validated by and its document shows. */
  fieldsOf(resource: Resource): FieldTable;
  /**
   * Whether a later version's change reshapes `kind` by hand (a `downgrade`, or `added` members): else
   * a described resource shows here exactly its fields here (`fieldsOf`), read from the newest row.
   */
  reshapes(kind: string): boolean;
  /**
   * What the entity tags of `kind` made in this version end with: '' where it shows what the first
   * version shows (so those tags stay as they were), else `.n`, n the changes of `kind` it shows.
   */
  tagSuffix(kind: string): string;
}

/** Every version the service knows, oldest first, and what each changed. */
export interface ApiVersions {
  readonly all: readonly VersionView[];
  readonly newest: VersionView;
  /** The view of `id` when it is served at `now`: known, and not past its sunset. */
  served(id: string, now?: number): VersionView | undefined;
  /** The versions served at `now`, newest first. */
  servedAt(now?: number): VersionView[];
}

/** A version's changes: its own, and those the resources attach to it. */
function changesOf(spec: VersionSpec, resources: readonly Resource[]): Change[] {
  const attached = resources.flatMap((resource) => (resource.changes ?? []).filter((change) => change.version === spec.version).map((change) => ({ ...change, kind: resource.plural })));
  return [...(spec.changes ?? []), ...attached];
}

// A change's downgrade with its added members taken off first.
function downgradeOf(change: Change): (body: Body) => unknown {
  const added = change.added ?? [];
  const own = change.downgrade;
  const stripped = added.length === 0 ? (body: Body) => body : (body: Body) => Object.fromEntries(Object.entries(body).filter(([member]) => !added.includes(member)));
  return own === undefined ? stripped : (body) => own(stripped(body));
}

function checkOrder(specs: readonly VersionSpec[], resources: readonly Resource[]): void {
  const ids = specs.map((spec) => spec.version);
  ids.forEach((id, i) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(id) || Number.isNaN(Date.parse(`${id}T00:00:00Z`))) throw new Error(`a version is a date, YYYY-MM-DD: ${id}`);
    if (i > 0 && id <= (ids[i - 1] ?? '')) throw new Error(`versions are listed oldest first, each once: ${id}`);
  });
  for (const resource of resources) {
    for (const change of resource.changes ?? []) if (!ids.includes(change.version)) throw new Error(`${resource.plural} has a change for ${change.version}, which is no version`);
  }
  if ((specs[0]?.changes ?? []).length > 0 || resources.some((resource) => (resource.changes ?? []).some((change) => change.version === ids[0]))) {
    throw new Error(`the first version, ${ids[0]}, changes nothing: it is the API as it first was`);
  }
}

/**
 * The versions of `specs` (oldest first) for `resources`: for each, the chain of changes between it and
 * the newest, run on each answer (newest first) and each request (oldest first). Checks that versions
 * are dates in order and that every change names one.
 */
export function buildVersions(specs: readonly VersionSpec[], resources: readonly Resource[], sunsets: Sunsets): ApiVersions {
  checkOrder(specs, resources);
  const changes = specs.map((spec) => changesOf(spec, resources));
  const views: VersionView[] = specs.map((spec, index): VersionView => {
    // The changes of every later version: what separates this one from the newest.
    const later = changes.slice(index + 1);
    const laterFlat = later.flat();
    const newestFirst = [...laterFlat].reverse();
    const downgrades = new Map<string, ((body: Body) => unknown)[]>();
    const chainOf = (kind: string): ((body: Body) => unknown)[] => {
      let chain = downgrades.get(kind);
      if (chain === undefined) {
        chain = newestFirst.filter((change) => change.kind === kind).map(downgradeOf);
        downgrades.set(kind, chain);
      }
      return chain;
    };
    const fields = new Map<Resource, FieldTable>();
    const sunsetAt = sunsets.at.get(spec.version) ?? null;
    const going = sunsetAt === null ? [] : ['deprecation', `@${sunsets.announcedAt}`, 'sunset', new Date(sunsetAt).toUTCString(), 'link', '</api/docs#versions>; rel="deprecation"'];
    return {
      id: spec.version,
      summary: spec.summary,
      get first(): VersionView {
        return views[0] as VersionView;
      },
      sunsetAt,
      headers: ['api-version', spec.version, 'vary', 'Api-Version', ...going],
      downgrade(kind, body) {
        let value: unknown = body;
        for (const step of chainOf(kind)) value = step(value as Body);
        return value;
      },
      upgrade(kind, body, upgrading) {
        let value = body;
        for (const change of laterFlat) if (change.kind === kind && change.upgrade !== undefined) value = change.upgrade(value, upgrading);
        return value;
      },
      has: (kind, member) => !laterFlat.some((change) => change.kind === kind && (change.added ?? []).includes(member)),
      reshapes: (kind) => laterFlat.some((change) => change.kind === kind && (change.downgrade !== undefined || (change.added ?? []).length > 0)),
      fieldsOf(resource) {
        let table = fields.get(resource);
        if (table === undefined) {
          table = resource.fields;
          for (const change of newestFirst) if (change.kind === resource.plural && change.fieldsBefore !== undefined) table = change.fieldsBefore(table);
          fields.set(resource, table);
        }
        return table;
      },
      tagSuffix(kind) {
        const shown = changes.slice(1, index + 1).flat().filter((change) => change.kind === kind).length;
        return shown === 0 ? '' : `.${shown}`;
      },
    };
  });
  const newest = views.at(-1);
  if (newest === undefined) throw new Error('there is no version');
  const byId = new Map(views.map((view) => [view.id, view]));
  // Every request asks (twice): a map, and the clock only for a version that has a sunset.
  const served = (id: string, now?: number): VersionView | undefined => {
    const view = byId.get(id);
    return view === undefined || (view.sunsetAt !== null && view.sunsetAt <= (now ?? Date.now())) ? undefined : view;
  };
  return {
    all: views,
    newest,
    served,
    servedAt: (now = Date.now()) => views.filter((view) => served(view.id, now) !== undefined).reverse(),
  };
}
