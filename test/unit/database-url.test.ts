import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { databaseUrlProblem, redactDatabaseUrl } from '../../src/db/database-url.ts';

// Fragments of one password on every side of the characters a URL treats specially: no part of it
// may survive redaction, however it was written.
const PASSWORD = 'Vx93qLm:Kd72Hs@wPz4Tq/Rt58Gb%Jn6#Yc3?Fw';
const FRAGMENTS = ['Vx93qLm', 'Kd72Hs', 'wPz4Tq', 'Rt58Gb', 'Jn6', 'Yc3', 'Fw'];
const ENCODED = encodeURIComponent(PASSWORD);

function assertHidden(text: string): void {
  for (const fragment of FRAGMENTS) assert.ok(!text.includes(fragment), `${text} shows ${fragment}`);
}

test('redaction hides the password of a URL, however it is written, and keeps the rest readable', () => {
  const cases: [string, string][] = [
    [`postgres://svc:${ENCODED}@db.example:5432/app`, 'postgres://svc:***@db.example:5432/app'],
    // Not percent-encoded: the `@`, `/`, `#` and `?` in it would mislead a URL parser.
    [`postgres://svc:${PASSWORD}@db.example:5432/app`, 'postgres://svc:***@db.example:5432/app'],
    [`postgresql://svc:${ENCODED}@[::1]:5432/app?sslmode=require`, 'postgresql://svc:***@[::1]:5432/app?sslmode=require'],
    // node-postgres takes these from the query too.
    [`postgres://svc@db.example/app?password=${ENCODED}&sslmode=require`, 'postgres://svc@db.example/app?password=***&sslmode=require'],
    [`postgres://svc@db.example/app?sslmode=require&sslpassword=${ENCODED}`, 'postgres://svc@db.example/app?sslmode=require&sslpassword=***'],
    // A libpq keyword/value string given by mistake.
    [`host=db.example password=${ENCODED} user=svc`, 'host=db.example password=*** user=svc'],
    [`host=db.example password='${PASSWORD.replace(/'/g, '')}' user=svc`, 'host=db.example password=*** user=svc'],
    ['postgres://svc@db.example:5432/app', 'postgres://svc@db.example:5432/app'],
    ['postgres://db.example/app', 'postgres://db.example/app'],
  ];
  for (const [url, shown] of cases) {
    const redacted = redactDatabaseUrl(url);
    assertHidden(redacted);
    assert.equal(redacted, shown);
  }
});

test('a bad SVC_DATABASE_URL is refused with one line that never shows its password', () => {
  const bad = [
    `postgres://svc:${ENCODED}@/app`,
    `postgres://svc:${ENCODED}@db.example:5432/app/more`,
    `postgres://svc:${ENCODED}@db.example:99999/app`,
    `postgres://svc:${ENCODED}@db example/app`,
    `postgres://svc:${PASSWORD}@db.example/app`,
    // A `%` the client could not decode (it threw a URIError instead of a configuration error).
    'postgres://svc:Vx93qLm%zz@db.example/app',
    `postgres://svc:${ENCODED}@db.example/app%`,
    `mysql://svc:${ENCODED}@db.example/app`,
    `host=db.example password=${ENCODED}`,
  ];
  for (const url of bad) {
    assert.notEqual(databaseUrlProblem(url), null, url);
    assert.throws(
      () => loadConfig({ SVC_DATABASE_URL: url }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^invalid SVC_DATABASE_URL=".*\*\*\*.*": expected postgres:\/\/user:password@host:port\/database \(.+\)$/);
        assertHidden(error.message);
        return true;
      },
    );
  }
});
