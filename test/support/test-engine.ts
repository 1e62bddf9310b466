// Which engine the engine-neutral tests (test/http, test/embedding, the OpenAPI conformance and some of
// test/ops) run on. `npm run test:suite` runs them on SQLite; `npm run test:postgres`
// (scripts/test-postgres.ts) runs them again with SVC_TEST_ENGINE=postgres on one throwaway cluster
// whose URL it passes in SVC_TEST_POSTGRES_URL.

/** An engine the service runs on. */
export type TestEngine = 'sqlite' | 'postgres';

function engineFrom(env: NodeJS.ProcessEnv): TestEngine {
  const value = env['SVC_TEST_ENGINE'] ?? '';
  if (value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`SVC_TEST_ENGINE must be sqlite or postgres, not ${JSON.stringify(value)}`);
}

/** The engine of this test run: SVC_TEST_ENGINE, SQLite by default. */
export const TEST_ENGINE: TestEngine = engineFrom(process.env);

/** The URL of the cluster's `svc` database, whose role may create databases (PostgreSQL pass only). */
export function clusterUrl(): string {
  const url = process.env['SVC_TEST_POSTGRES_URL'] ?? '';
  if (url === '') {
    throw new Error('SVC_TEST_ENGINE=postgres needs a cluster: run the files through `npm run test:postgres -- <files>`');
  }
  return url;
}

/**
 * The `skip` option of a test that involves no database (a type check, say): the SQLite pass runs it,
 * and the PostgreSQL pass says in its report why it does not repeat it.
 */
export function onceForBothEngines(what: string): { skip: false | string } {
  return { skip: TEST_ENGINE === 'sqlite' ? false : `${what} involves no database; the SQLite pass ran it` };
}
