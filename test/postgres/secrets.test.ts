import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { spawnServe, urlOf } from '../ops/support.ts';
import { BIN, linesOf, type RunResult, runBin } from '../support/cli.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { post, send } from './support.ts';

// Passwords made of fragments that cannot occur by chance, around every character a URL treats
// specially: a line or a body that shows any fragment has shown (part of) the secret.
const PASSWORD = 'Vx93qLm:Kd72Hs@wPz4Tq/Rt58Gb%Jn6Ye#Yc3Dk?Fw8Uo';
const WRONG = 'Wq84Zt:Hm27Xe@Lp51Ks';
const fragmentsOf = (password: string): string[] => password.split(/[^A-Za-z0-9]/);

function assertHidden(text: string, password = PASSWORD): void {
  for (const fragment of fragmentsOf(password)) assert.ok(!text.includes(fragment), `shows ${fragment}:\n${text}`);
}

const outputOf = (result: RunResult): string => `${result.stdout}\n${result.stderr}`;

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('the password of SVC_DATABASE_URL never appears in a log line, an error or a response', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let url: string;
  const at = (password: string, database = 'keeper_db', host = `127.0.0.1:${cluster.port}`): string =>
    `postgres://keeper:${encodeURIComponent(password)}@${host}/${database}`;
  before(async () => {
    cluster = await startPostgres();
    await cluster.sql([`CREATE ROLE keeper LOGIN PASSWORD '${PASSWORD}'`, 'CREATE DATABASE keeper_db OWNER keeper'], 'postgres');
    url = at(PASSWORD);
  });
  after(() => cluster?.stop());

  const migrate = (databaseUrl: string, args: string[] = []): Promise<RunResult> => runBin(BIN.migrate, args, { env: { SVC_DATABASE_URL: databaseUrl } });
  const serve = (databaseUrl: string): Promise<RunResult> => runBin(BIN.serve, [], { env: { SVC_DATABASE_URL: databaseUrl, SVC_PORT: '0' } });

  test('migrate, --status, and serve through requests, an outage and a shutdown: every line and body hides it', async () => {
    const migrated = await migrate(url);
    assert.equal(migrated.code, 0, migrated.stderr);
    // The URL is named, with its password hidden: the check below is not vacuous.
    assert.match(migrated.stdout, /postgres:\/\/keeper:\*\*\*@127\.0\.0\.1/);
    const texts = [outputOf(migrated), outputOf(await migrate(url, ['--status']))];
    // node-postgres also takes the password from the query.
    const inQuery = await migrate(`postgres://keeper@127.0.0.1:${cluster.port}/keeper_db?password=${encodeURIComponent(PASSWORD)}`);
    assert.equal(inQuery.code, 0, inQuery.stderr);
    assert.match(inQuery.stdout, /keeper_db\?password=\*\*\*/);
    texts.push(outputOf(inQuery));

    const server = spawnServe({ SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'trace', SVC_REQUEST_TIMEOUT_MS: '6000', SVC_HEADERS_TIMEOUT_MS: '5000' });
    try {
      const base = await urlOf(server);
      const exchange = async (): Promise<void> => {
        const created = await post(`${base}/api/products`, { name: 'Kept', priceInCents: 1 });
        const path = created.headers.get('location') ?? '/api/products/1';
        const answers = [created, await send(`${base}${path}`), await send(`${base}/api/products`), await send(`${base}/api/ping`)];
        answers.push(await post(`${base}/api/products`, { name: '' }), await send(`${base}/api/products/999999`));
        for (const answer of answers) texts.push(`${answer.status} ${JSON.stringify([...answer.headers])} ${answer.body}`);
      };
      await exchange();
      await cluster.stopServer('fast');
      await exchange();
      await cluster.startServer();
      await exchange();
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    } finally {
      server.kill();
    }
    texts.push(JSON.stringify(server.lines), server.stderr());
    assert.ok(texts.some((text) => text.includes('"status":503')), 'the outage was seen');
    for (const text of texts) assertHidden(text);
  });

  test('errors hide it too: a bad URL, a wrong password, a closed port, an unknown host, a missing database', async () => {
    const cases: [string, string, RegExp][] = [
      // Not percent-encoded: its `/` and `%` make the path invalid.
      ['a bad URL', `postgres://keeper:${PASSWORD}@127.0.0.1:${cluster.port}/keeper_db`, /invalid SVC_DATABASE_URL/],
      ['a bad URL', at(PASSWORD, 'keeper_db/more'), /invalid SVC_DATABASE_URL=.*one database name/],
      ['a bad URL', `postgres://keeper:${encodeURIComponent(PASSWORD)}@/keeper_db`, /invalid SVC_DATABASE_URL/],
      ['a wrong password', at(WRONG), /password authentication failed for user "keeper"/],
      ['a closed port', at(PASSWORD, 'keeper_db', `127.0.0.1:${await closedPort()}`), /ECONNREFUSED/],
      ['an unknown host', at(PASSWORD, 'keeper_db', 'no-such-host.invalid:5432'), /ENOTFOUND|EAI_AGAIN/],
      ['a missing database', at(PASSWORD, 'no_such_db'), /database "no_such_db" does not exist/],
    ];
    for (const [what, databaseUrl, reason] of cases) {
      for (const result of [await serve(databaseUrl), await migrate(databaseUrl)]) {
        assert.notEqual(result.code, 0, `${what}: exits non-zero`);
        const lines = linesOf(result.stderr);
        assert.equal(lines.length, 1, `${what}: one line on stderr: ${result.stderr}`);
        assert.match(lines[0] ?? '', reason, what);
        assertHidden(outputOf(result));
        assertHidden(outputOf(result), WRONG);
      }
    }
  });
});
