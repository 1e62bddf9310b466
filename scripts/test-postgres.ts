// The PostgreSQL pass of `npm test`: one throwaway cluster for the whole run (test/support/postgres.ts),
// and the engine-neutral test files run against it by node:test with SVC_TEST_ENGINE=postgres, two
// files at a time; each file makes fresh databases of its own on the cluster. Without PostgreSQL it
// says plainly what it skipped and exits 0, except under CI=true, where that is a failure.
// Usage: node scripts/test-postgres.ts [node --test options] [test files or globs; default: FILES]
import { type ChildProcess, spawn } from 'node:child_process';
import { skipWithoutPostgres, startPostgres } from '../test/support/postgres.ts';
import { prepareMigratedTemplate } from '../test/support/postgres-template.ts';

/** The files that run on both engines (docs/testing.md, Both engines, says why the others do not). */
const FILES = [
  'test/http/*.test.ts',
  'test/embedding/*.test.ts',
  'test/cli/keys.test.ts',
  'test/openapi/conformance.test.ts',
  'test/openapi/server-states.test.ts',
  'test/ops/concurrent-changes.test.ts',
  'test/ops/events-stream-processes.test.ts',
  'test/ops/idempotency.test.ts',
  'test/ops/metrics-serve.test.ts',
  'test/ops/metrics.test.ts',
  'test/ops/proxy-and-token.test.ts',
  'test/ops/rate-limit.test.ts',
  'test/ops/shutdown.test.ts',
  'test/ops/two-processes.test.ts',
  'test/reliability/webhooks-at-least-once.test.ts',
  'test/unit/start-server-ownership.test.ts',
  'test/unit/webhook-claim-read.test.ts',
];

function runTests(args: readonly string[], url: string): { child: ChildProcess; done: Promise<number> } {
  const options = args.filter((arg) => arg.startsWith('--'));
  const files = args.filter((arg) => !arg.startsWith('--'));
  // process.execPath: the Node running this script runs the tests too (CI runs it on the minimum Node).
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...options, ...(files.length > 0 ? files : FILES)], {
    stdio: 'inherit',
    env: { ...process.env, SVC_TEST_ENGINE: 'postgres', SVC_TEST_POSTGRES_URL: url },
  });
  const done = new Promise<number>((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal))));
  });
  return { child, done };
}

function signalNumber(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 9;
}

async function main(args: readonly string[]): Promise<number> {
  let skip: false | string;
  try {
    skip = skipWithoutPostgres();
  } catch (error) {
    console.error(`PostgreSQL pass failed: ${(error as Error).message}`);
    return 1;
  }
  if (skip !== false) {
    console.log(`PostgreSQL pass skipped (only the SQLite pass ran): ${skip}`);
    return 0;
  }
  const started = Date.now();
  // Room for every pool of two test files at once, with servers in several processes.
  const cluster = await startPostgres({ settings: { max_connections: '300' } });
  let code = 1;
  try {
    await prepareMigratedTemplate(cluster.url);
    const run = runTests(args, cluster.url);
    // Ctrl-C or a SIGTERM reaches the tests first; the cluster is stopped once they have ended.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => run.child.kill(signal));
    code = await run.done;
  } finally {
    await cluster.stop();
  }
  console.log(`PostgreSQL pass ${code === 0 ? 'passed' : 'failed'} in ${((Date.now() - started) / 1000).toFixed(1)} s (one cluster, SVC_TEST_ENGINE=postgres)`);
  return code;
}

process.exitCode = await main(process.argv.slice(2));
