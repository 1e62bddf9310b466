import { crc32 } from 'node:zlib';
import { type ApiKeyRequest, type ApiKeyView, createApiKey } from '../../src/api-keys.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { base62, generateKey } from '../../src/keys/format.ts';
import { postJson, startTestServer, type TestServer } from './server.ts';
import type { TestDatabase } from './test-database.ts';

/** A key as made: its ApiKey and the key itself. */
export type MadeKey = ApiKeyView & { key: string };

/** Makes a key on `database` through the package's own createApiKey, as bin/keys.js does: how the first admin key is made. */
export async function makeKey(database: TestDatabase, request: ApiKeyRequest): Promise<MadeKey> {
  const db = database.open();
  try {
    return await createApiKey(db, request);
  } finally {
    await closeDatabase(db);
  }
}

/** A test server with SVC_AUTH=keys, and the admin key made on its database before any request. */
export interface KeysServer extends TestServer {
  admin: MadeKey;
  /** Makes a key over HTTP with the admin key (POST /api/keys); rejects unless the answer is 201. */
  newKey(request: ApiKeyRequest): Promise<MadeKey>;
}

/** Starts the real server (startTestServer) with SVC_AUTH=keys and `env`, and makes its first admin key. */
export async function startKeysServer(env: Record<string, string> = {}): Promise<KeysServer> {
  const server = await startTestServer({ SVC_AUTH: 'keys', ...env });
  try {
    const admin = await makeKey(server.database, { name: 'first admin', scopes: ['admin'] });
    const newKey = async (request: ApiKeyRequest): Promise<MadeKey> => {
      const response = await postJson(`${server.url}/api/keys`, request, bearer(admin.key));
      if (response.status !== 201) throw new Error(`POST /api/keys answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as MadeKey;
    };
    return Object.assign(server, { admin, newKey });
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The Authorization header of a bearer credential. */
export function bearer(credential: string): Record<string, string> {
  return { authorization: `Bearer ${credential}` };
}

/** A well-formed key (valid checksum) with the public id `id` and a secret of its own: the right id, a wrong secret. */
export function keyWithOtherSecret(id: string): string {
  const body = `svc_${id}_${generateKey().key.slice(17, 60)}`;
  return body + base62(BigInt(crc32(body)), 6);
}

/** A well-formed key (valid checksum) with a random id that names no stored key: a guess. */
export function guessedKey(): string {
  return generateKey().key;
}
