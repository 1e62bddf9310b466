/** True for a value meant as a PostgreSQL connection URL rather than a SQLite path. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

// The password of a URL: everything between `//user:` and the last `@`, so that one whose `@`, `/`,
// `:` or `#` was not percent-encoded is hidden whole too (at worst more than the password is hidden).
const URL_PASSWORD = /(\/\/[^:/@]*:)[\s\S]*@/;
// node-postgres also takes a password from the query (`?password=`, `?sslpassword=` for the key), and
// a libpq keyword/value string (`host=db password=…`) may be given by mistake.
const PASSWORD_PARAMETER = /(password\s*=\s*)('[^']*'?|[^\s&#]*)/gi;

/** The value with its passwords replaced by `***`, for logs and error messages; never the secret itself. */
export function redactDatabaseUrl(value: string): string {
  return value.replace(URL_PASSWORD, '$1***@').replace(PASSWORD_PARAMETER, '$1***');
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
  // The client decodes these; a stray `%` would make it throw instead of connecting.
  if (![url.username, url.password, url.pathname].every(decodes)) return 'a `%` that is not percent-encoding (write it as %25)';
  if (url.pathname.length > 1 && !/^\/[^/]+$/.test(decodeURIComponent(url.pathname))) return 'the path must be one database name';
  return null;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
