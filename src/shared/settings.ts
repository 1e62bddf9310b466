import { isIP } from 'node:net';

// How every part reads its SVC_* variables (src/config.ts assembles the parts): the one error type
// and the parsers of the common kinds of value, each failing with one line that names the variable,
// the value given and what is allowed.

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DURABILITIES = ['full', 'normal'] as const;
export type Durability = (typeof DURABILITIES)[number];

/** Who may call (docs/security.md): anyone (`off`), holders of API keys, or of access tokens. */
export const AUTH_MODES = ['off', 'keys', 'jwt'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** Thrown for an invalid variable; its message is the one line start-up prints. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The variables settings are read from (process.env, or a test's own). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Throws the ConfigError of variable `name` with `value`, saying what is `allowed`. */
export function fail(name: string, value: string, allowed: string): never {
  throw new ConfigError(`invalid ${name}=${JSON.stringify(value)}: expected ${allowed}`);
}

/** An integer variable from `min` to `max`, `fallback` when unset or empty. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const trimmed = raw.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(name, raw, `an integer from ${min} to ${max}`);
  }
  return value;
}

/** One of `allowed` (any letter case), `fallback` when unset or empty. */
export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) fail(name, raw, `one of ${allowed.join(', ')}`);
  return found;
}

/** A listener address: an IP address or a host name, 127.0.0.1 when unset or empty. */
export function host(env: Env, name: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return '127.0.0.1';
  const value = raw.trim();
  const hostname = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  if (isIP(value) === 0 && !hostname.test(value)) fail(name, raw, 'an IP address or a host name');
  return value;
}

/** A text variable as it is, `fallback` when unset or empty. */
export function text(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}
