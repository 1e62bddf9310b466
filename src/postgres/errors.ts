// SQLSTATEs a transaction is retried for: PostgreSQL (and compatible distributed engines such as
// CockroachDB and YugabyteDB) abort one of two conflicting transactions and expect a retry.
const RETRYABLE = new Set(['40001', '40P01']);

/** The SQLSTATE of an error PostgreSQL reported, or undefined. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A serialization failure or deadlock: the transaction was aborted whole and may simply run again. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has(sqlState(error) ?? '');
}

// Classes and codes that mean "the server is not there (or not for us) right now": connection
// exceptions (08), operator intervention such as shutdown (57P01-57P03), too many connections
// (53300), insufficient resources (53), and a statement cut off by statement_timeout (57014).
const UNAVAILABLE_CLASSES = ['08', '53'];
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);

/** True for an error PostgreSQL reported that means it cannot serve now, as opposed to a bug or a rule. */
export function isServerUnavailable(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2)));
}
