/** True for a value meant as a PostgreSQL connection URL rather than a SQLite path. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The URL with its password replaced by `***`, for logs and error messages; never the secret itself. */
export function redactDatabaseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    // Not parseable: hide whatever stands between `//user:` and `@`.
    return value.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}

/** Why `value` is not a usable connection URL, or null when it is. */
export function databaseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (!isPostgresUrl(value)) return 'the scheme must be postgres:// or postgresql://';
  // A unix socket folder may come as ?host=/run/postgresql instead of a host name.
  if (url.hostname === '' && url.searchParams.get('host') === null) return 'no host';
  if (url.pathname.length > 1 && !/^\/[^/]+$/.test(decodeURIComponent(url.pathname))) return 'the path must be one database name';
  return null;
}
