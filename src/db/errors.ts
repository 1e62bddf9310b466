// Storage's own errors: what any engine raises when it cannot do the work, for reasons that are
// not the request's fault. src/http/problem.ts turns them into problem documents; storage itself
// knows nothing of HTTP.

/** Another writer held the database (a lock, or transactions that kept conflicting) for too long; nothing was written. */
export class StorageBusyError extends Error {
  override name = 'StorageBusyError';
}

/** The database cannot be reached or answered too slowly; nothing was acknowledged. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}
