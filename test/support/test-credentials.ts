import { type CredentialCheck, type Identified, refused } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';

/** A key the browser tests type or send: it may write. */
export const WRITER = 'writer-browser';

/**
 * An embedding program's own credential check (createApp's `credentials`), standing in for the
 * service's API keys until they exist: `writer-…` may write, `reader-…` may read, nothing else passes.
 */
export const writersAndReaders: CredentialCheck = {
  identify(credential): Identified {
    const [role, name] = credential.split('-');
    if (name === undefined) return refused('unknown');
    if (role === 'writer') return { ok: true, caller: { kind: 'key', id: name, scopes: [Scope.write] } };
    if (role === 'reader') return { ok: true, caller: { kind: 'key', id: name, scopes: [Scope.read] } };
    return refused('unknown');
  },
};
