// Managing API keys from a program (docs/security.md, API keys): what bin/keys.js does, on a database the
// program opened, with the same rules as POST /api/keys. A service already running on the same
// database sees a revocation made here within 2 seconds, as it sees one made by another process.
import type { ScopeName } from './callers/scopes.ts';
import { createStorage, type Database, isPostgres } from './db/engine.ts';
import type { Storage } from './db/storage.ts';
import { keyDigest } from './keys/format.ts';
import { type ApiKeyView, presentApiKey, presentCreatedApiKey } from './keys/presenter.ts';
import { type ApiKeyUseCases, createApiKeyUseCases } from './keys/use-cases.ts';
import { type KeyVersionRules, validateNewApiKey } from './keys/validate.ts';
import { RESOURCES, VERSIONS } from './registry.ts';
import { decodeCursor, DEFAULT_LIMIT, encodeCursor, MAX_LIMIT } from './shared/paging.ts';
import type { FieldError } from './shared/validation.ts';
import { buildVersions } from './versions/api-versions.ts';
import type { VersionSettings } from './versions/settings.ts';

export type { ApiKeyView } from './keys/presenter.ts';

/** What a new key is made of; `expiresAt` an RFC 3339 time in the future, or null (the default) for never. */
export interface ApiKeyRequest {
  name: string;
  scopes: readonly ScopeName[];
  expiresAt?: string | null;
  /** The API version its requests get without Api-Version: a version served; by default SVC_API_VERSION of the settings given (else the first, 2026-11-21). */
  apiVersion?: string;
}

/** The version settings a key is made under (Config's `versions`): SVC_API_VERSION, the default pin, and SVC_API_SUNSET, versions no key may pin once past. */
export type ApiKeyVersionSettings = Pick<VersionSettings, 'defaultVersion' | 'sunsets'>;

// Without settings: the first version (SVC_API_VERSION's default), and every version the build knows.
const FIRST_VERSION: ApiKeyVersionSettings = { defaultVersion: VERSIONS[0]?.version ?? '', sunsets: new Map() };

/**
 * What a key made outside a request may pin, under `settings` at `now`: the versions served, and
 * SVC_API_VERSION when it names none. For bin/keys.js, which judges its options before it opens the database.
 */
export function keyVersionRules(settings: ApiKeyVersionSettings = FIRST_VERSION, now = Date.now()): KeyVersionRules {
  const versions = buildVersions(VERSIONS, RESOURCES, { at: settings.sunsets, announcedAt: 0 });
  return { served: versions.servedAt(now).map((view) => view.id), defaultVersion: settings.defaultVersion, pinnable: true };
}

/** A request for a key that POST /api/keys would refuse with 422; `errors` lists every field error. */
export class ApiKeyValidationError extends Error {
  override name = 'ApiKeyValidationError';
  readonly errors: readonly FieldError[];

  constructor(errors: readonly FieldError[]) {
    super(`invalid API key request: ${errors.map((error) => error.detail).join('; ')}`);
    this.errors = errors;
  }
}

/** The storage of a database and the key use cases on it, built once per database. */
interface KeysOn {
  readonly storage: Storage;
  readonly keys: ApiKeyUseCases;
  /** False once the statements prepared for it are gone (a SQLite connection closed and opened again). */
  usable(): boolean;
}

// Keyed by the database handle itself, so a handle the program drops takes its storage with it.
const built = new WeakMap<Database, KeysOn>();

// node:sqlite finalizes every statement of a connection that closes; `open()` may then reopen the same
// handle, so a probe statement tells whether the ones prepared before are still there.
function usableCheck(db: Database): () => boolean {
  if (isPostgres(db)) return () => true;
  const probe = db.prepare('SELECT 1');
  return () => {
    try {
      return probe.sourceSQL !== '';
    } catch {
      return false;
    }
  };
}

// Each engine's storage prepares its statements (SQLite) and sets up its group commit once: not per call.
function keysOn(db: Database): KeysOn {
  const held = built.get(db);
  if (held !== undefined && held.usable()) return held;
  const storage = createStorage(db);
  const fresh: KeysOn = { storage, keys: createApiKeyUseCases(storage.keys), usable: usableCheck(db) };
  built.set(db, fresh);
  return fresh;
}

/**
 * Makes a key; resolves to its ApiKey and the key itself, which is shown nowhere else: store it now.
 * `settings` (a Config's `versions`) say which versions it may pin and which it pins when the request names none.
 */
export async function createApiKey(db: Database, request: ApiKeyRequest, settings?: ApiKeyVersionSettings): Promise<ApiKeyView & { key: string }> {
  const { storage, keys } = keysOn(db);
  // Only the members of a request, so an object with more in it is judged as POST /api/keys would judge its body.
  const { name, scopes, expiresAt, apiVersion } = request;
  const body = { name, scopes, ...(expiresAt === undefined ? {} : { expiresAt }), ...(apiVersion === undefined ? {} : { apiVersion }) };
  const result = validateNewApiKey(body, keys.now(), keyVersionRules(settings));
  if (!result.ok) throw new ApiKeyValidationError(result.errors);
  const { apiKey, key } = await storage.transaction((tx) => keys.create(tx, result.value));
  return presentCreatedApiKey(apiKey, key);
}

/** One page of keys, newest first; pass `nextCursor` back as `cursor` for the next (null on the last). */
export async function listApiKeys(db: Database, page: { limit?: number; cursor?: string } = {}): Promise<{ keys: ApiKeyView[]; nextCursor: string | null }> {
  const limit = page.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  const beforeId = page.cursor === undefined ? null : decodeCursor('keys', page.cursor);
  if (beforeId === null && page.cursor !== undefined) throw new RangeError('cursor is not one listApiKeys issued');
  const { items, nextBeforeId } = await keysOn(db).keys.list({ limit, beforeId });
  return { keys: items.map(presentApiKey), nextCursor: nextBeforeId === null ? null : encodeCursor('keys', nextBeforeId) };
}

/** The key with this public id, or undefined. */
export async function getApiKey(db: Database, id: string): Promise<ApiKeyView | undefined> {
  const apiKey = await keysOn(db).keys.get(id);
  return apiKey === undefined ? undefined : presentApiKey(apiKey);
}

/** Revokes a key (a key revoked already keeps its first revokedAt); resolves to it, or undefined when no key has this id. */
export async function revokeApiKey(db: Database, id: string): Promise<ApiKeyView | undefined> {
  const { storage, keys } = keysOn(db);
  const outcome = await storage.transaction((tx) => keys.revoke(tx, id, () => true));
  return outcome.kind === 'revoked' ? presentApiKey(outcome.apiKey) : undefined;
}

/**
 * Whether `key` (a whole key, its id `id`) is the stored key of that id: `same` when its SHA-256 is the
 * digest stored, `other` when the id is a key's but the secret is not, `none` when no key has the id.
 * For bin/keys.js revoke KEY; not part of the package's API.
 */
export async function wholeKeyMatch(db: Database, id: string, key: string): Promise<'same' | 'other' | 'none'> {
  const apiKey = await keysOn(db).keys.get(id);
  if (apiKey === undefined) return 'none';
  // A plain comparison: the operator typed the key, so its timing tells nothing to anyone else.
  return apiKey.digest === keyDigest(key).toString('base64url') ? 'same' : 'other';
}
