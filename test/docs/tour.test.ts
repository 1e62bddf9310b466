import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv, runBin, startBin } from '../support/cli.ts';
import { answerMismatch, startVariables, TOUR_HEADING, TourShell, tourSteps } from './tour.ts';

// The README's tour, run as written: every `sh` block of its section, in order, in one shell, against a
// service started the way the page says, in a fresh folder (so `data/tour.db` is a fresh database).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
// The address the page uses; the test's own service listens on a free port instead.
const PAGE_ADDRESS = '127.0.0.1:3000';
const STEP_TIMEOUT_MS = 30_000;

type Service = ReturnType<typeof startBin>;

// A newcomer's terminal: no SVC_* variable, and none of the npm_* ones `npm test` sets, which would
// point an `npm run` of a step at this checkout instead of the tour's folder.
function newcomerEnv(env: Record<string, string>): Record<string, string> {
  const clean = cleanEnv(env);
  for (const name of Object.keys(clean)) if (name.startsWith('npm_') || name === 'INIT_CWD') delete clean[name];
  return clean;
}

// Resolves with the URL the service logs once listening; rejects if it exits first.
function listeningUrl(service: Service): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = (): void => {
      const url = /"url":"(http:\/\/[^"]+)"/.exec(service.output.stdout)?.[1];
      if (url !== undefined) resolve(url);
    };
    service.stdout?.on('data', look);
    service.done.then(() => reject(new Error(`the service exited: ${service.output.stdout}${service.output.stderr}`)), reject);
    look();
  });
}

// What `npm start` runs (package.json), with the page's variables, on a free port, in `cwd`.
async function startService(cwd: string, variables: Record<string, string>): Promise<{ service: Service; address: string }> {
  const env = { ...variables, SVC_PORT: '0' };
  const migrated = await runBin(BIN.migrate, [], { cwd, env });
  assert.equal(migrated.code, 0, `migrate: ${migrated.stdout}${migrated.stderr}`);
  const service = startBin(BIN.serve, [], { cwd, env });
  const url = await listeningUrl(service);
  return { service, address: new URL(url).host };
}

async function stopService(service: Service | undefined): Promise<void> {
  if (service === undefined || service.exitCode !== null) return;
  service.kill('SIGTERM');
  await service.done;
}

// Runs the tour of `readme` in a fresh folder; resolves once every step answered as the page shows.
async function runTour(readme: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'svc-tour-'));
  // `node bin/…` in a step finds the repository's scripts, run by this test's Node; `npm run …` finds
  // their scripts in package.json, as in a checkout.
  symlinkSync(join(ROOT, 'bin'), join(folder, 'bin'));
  symlinkSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  const env = newcomerEnv({ PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}` });
  execFileSync('curl', ['--version'], { env, stdio: 'ignore' }); // the tour needs curl, as a newcomer does
  const shell = new TourShell(folder, env);
  let service: Service | undefined;
  let address = PAGE_ADDRESS;
  try {
    for (const step of tourSteps(readme)) {
      const variables = startVariables(step.commands);
      if (variables !== null) {
        await stopService(service);
        ({ service, address } = await startService(folder, variables));
        continue;
      }
      const output = await shell.run(step.commands.replaceAll(PAGE_ADDRESS, address), STEP_TIMEOUT_MS);
      const mismatch = answerMismatch(step.answer, output);
      assert.equal(mismatch, null, `README line ${step.line}:\n${step.commands}\n${mismatch ?? ''}\nstderr: ${shell.stderr}`);
    }
  } finally {
    shell.close();
    await stopService(service);
    rmSync(folder, { recursive: true, force: true });
  }
}

test('the tour starts the service, then shows the answer of each request', () => {
  const steps = tourSteps(README);
  assert.notEqual(startVariables(steps[0]?.commands ?? ''), null, 'the first step starts the service');
  const requests = steps.filter((step) => step.commands.includes('curl '));
  assert.ok(requests.length >= 4, `the "${TOUR_HEADING}" section creates, lists, changes and deletes`);
  for (const step of requests) assert.notEqual(step.answer, undefined, `README line ${step.line}: a text block shows its answer`);
  // The tour's `npm start` is read as these two commands; if package.json changes them, so must this test.
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts['start'], 'node bin/migrate.js && node bin/serve.js');
});

test('the matcher of answers wants every shown line, in order, with … for what varies', () => {
  const output = 'HTTP/1.1 201 Created\r\nx-request-id: 9f\r\netag: "1"\r\n\r\n{"id":1,"at":"2026-11-24T20:26:59.730Z"}';
  assert.equal(answerMismatch('HTTP/1.1 201 Created\netag: "1"\n\n{"id":1,"at":"…"}\n', output), null);
  assert.notEqual(answerMismatch('HTTP/1.1 200 OK\n', output), null, 'another status');
  assert.notEqual(answerMismatch('etag: "2"\n', output), null, 'another header value');
  assert.notEqual(answerMismatch('etag: "1"\nHTTP/1.1 201 Created\n', output), null, 'out of order');
  assert.notEqual(answerMismatch('{"id":1}\n', output), null, 'part of a line is not the line');
  assert.equal(answerMismatch(undefined, '\n'), null, 'a step shown with no answer prints nothing');
  assert.notEqual(answerMismatch(undefined, 'something'), null);
});

test("the README's tour, pasted in order on a fresh database, answers as the page shows", { timeout: 180_000 }, async () => {
  await runTour(README);
});

// How a later step (turning keys on) joins the tour: appended to its section, with a restart that sets
// a variable, a shell variable set by one step and used by the next, and data kept across the restart.
const APPENDED = [
  '```sh',
  'SVC_DB_PATH=data/tour.db SVC_API_TOKEN=tour-token-0123456789 npm start',
  '```',
  '```sh',
  'TOKEN=tour-token-0123456789',
  '```',
  '```sh',
  'curl -si -X POST http://127.0.0.1:3000/api/products -H "authorization: Bearer $TOKEN" \\',
  "     -H 'content-type: application/json' -d '{\"name\":\"Lamp\",\"priceInCents\":1}'",
  '```',
  '```text',
  'HTTP/1.1 201 Created',
  'location: /api/products/2',
  '```',
  '```sh',
  'curl -si -X DELETE http://127.0.0.1:3000/api/products/2',
  '```',
  '```text',
  'HTTP/1.1 401 Unauthorized',
  '```',
  '',
].join('\n');

test('steps appended to the tour run too: a restart with new variables, shell variables across steps', { timeout: 180_000 }, async () => {
  const end = README.indexOf('\n## ', README.indexOf(TOUR_HEADING) + 1);
  const extended = `${README.slice(0, end + 1)}${APPENDED}${README.slice(end + 1)}`;
  assert.equal(tourSteps(extended).length, tourSteps(README).length + 4);
  await runTour(extended);
  // And the same steps with a wrong answer fail: the appended run is checked, not only executed.
  await assert.rejects(runTour(extended.replace('HTTP/1.1 401 Unauthorized', 'HTTP/1.1 204 No Content')), /README line/);
});
