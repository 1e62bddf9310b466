import type { CredentialCheck, Identified } from '../callers/caller.ts';
import { identifyRequest } from './bearer.ts';

// What the request pipeline adds for API versions (docs/versions.md): the version's headers beside
// the CORS ones, and the pin of a key sent to an open route.

/** The 400 of a version not served carries no Api-Version, only Vary. */
export const VARY_VERSION: readonly string[] = ['vary', 'Api-Version'];
export const NO_HEADERS: readonly string[] = [];

/** Whether a path is under /api, where every answer says its version. */
export const underApi = (path: string): boolean => path === '/api' || path.startsWith('/api/');

// The CORS headers and a version's (name, value, …), with one Vary that names both (`Origin, Api-Version`).
export function joined(cors: readonly string[], version: readonly string[]): readonly string[] {
  if (cors.length === 0) return version;
  const headers = [...cors];
  const vary = headers.indexOf('vary');
  for (let i = 0; i < version.length; i += 2) {
    const name = version[i] as string;
    const value = version[i + 1] as string;
    if (name === 'vary' && vary >= 0 && vary % 2 === 0) headers[vary + 1] = `${headers[vary + 1] as string}, ${value}`;
    else headers.push(name, value);
  }
  return headers;
}

/**
 * How an open route learns the version of a key sent with it: the key is read for its pin only; a bad
 * one, or one that cannot be read now, leaves the default (undefined). Nothing when no check is on.
 */
export function pinReader(credentials: CredentialCheck | null): (authorization: string | undefined) => string | undefined | Promise<string | undefined> {
  const pin = (identified: Identified): string | undefined => (identified.ok ? identified.caller.apiVersion : undefined);
  return (authorization) => {
    if (credentials === null || authorization === undefined) return undefined;
    try {
      const identified = identifyRequest(credentials, authorization);
      return identified instanceof Promise ? identified.then(pin, () => undefined) : pin(identified);
    } catch {
      return undefined;
    }
  };
}
