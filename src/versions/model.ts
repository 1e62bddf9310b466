import type { FieldTable } from '../resources/resource.ts';

/** The kind of every JSON list answer: its newest shape is `{ "data": [...], "hasMore": … }` (src/versions/v2026-11-28.ts). */
export const LIST = 'list';

/** A JSON object as a representation or a request body holds it. */
export type Body = Readonly<Record<string, unknown>>;

/** What a request's upgrade may need of the service's settings (a price written in a version before currencies gets SVC_DEFAULT_CURRENCY). */
export interface UpgradeSettings {
  readonly defaultCurrency: string;
}

/** A request body being upgraded: a create's or a merge patch's (in a patch every member is optional). */
export interface Upgrading {
  readonly mode: 'create' | 'patch';
  readonly settings: UpgradeSettings;
}

/**
 * How one kind of representation changed in a version: `kind` is a resource's plural, `keys`,
 * `webhooks`, or `list` (every JSON list answer). The newest version is the one implementation; each
 * change says how an answer of its version becomes the version before's, and how a request of the
 * version before becomes one of its version.
 */
export interface Change {
  readonly kind: string;
  /** Members this version added to the representation (and to the request bodies that set them): the version before has none of them. */
  readonly added?: readonly string[];
  /** This version's representation → the version before's (after `added` is taken off). */
  downgrade?(body: Body): unknown;
  /** A validated request body of the version before → this version's. */
  upgrade?(body: Body, upgrading: Upgrading): Body;
  /** This version's fields → the version before's (a described resource's: its validators and schemas in that version derive from them). */
  fieldsBefore?(fields: FieldTable): FieldTable;
}

/** A change attached to a resource's description: its kind is the resource. */
export type ResourceChange = Omit<Change, 'kind'> & { readonly version: string };

/** A version of the API: a date, what it changed (one line, for people), and its changes that belong to no resource. */
export interface VersionSpec {
  readonly version: string;
  readonly summary: string;
  readonly changes?: readonly Change[];
}
