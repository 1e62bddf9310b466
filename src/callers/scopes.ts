/**
 * What a caller may do (docs/security.md): each scope includes the ones below it. Sequential integers in
 * the code, names on the wire and in storage.
 */
export const Scope = { read: 1, write: 2, admin: 3 } as const;
export type Scope = (typeof Scope)[keyof typeof Scope];

/** A scope's name as clients send and see it. */
export type ScopeName = keyof typeof Scope;

/** Every scope name, lowest first. */
export const SCOPE_NAMES: readonly ScopeName[] = ['read', 'write', 'admin'];

/** The scope a name stands for, or undefined for any other string. */
export function scopeNamed(name: string): Scope | undefined {
  return Object.hasOwn(Scope, name) ? Scope[name as ScopeName] : undefined;
}

/** The name of a scope. */
export function nameOfScope(scope: Scope): ScopeName {
  return SCOPE_NAMES[scope - 1] as ScopeName;
}

/** Whether scopes granted to a caller allow an operation that needs `needed` (admin includes write, write includes read). */
export function allows(granted: readonly Scope[], needed: Scope): boolean {
  return granted.some((scope) => scope >= needed);
}
