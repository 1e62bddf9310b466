import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

const INSTALL = 'install it to run this check: `apt-get install prometheus` (Debian, Ubuntu) or a release from https://prometheus.io/download/';

/**
 * Whether Prometheus' own `promtool` can run here. Missing, the test is skipped with a message
 * saying how to install it; under CI=true a missing promtool is a failure, so CI never skips it.
 */
export function havePromtool(t: TestContext): boolean {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return true;
  if (process.env['CI'] === 'true') throw new Error(`promtool is not installed but CI=true; ${INSTALL}`);
  t.skip(`promtool not found; ${INSTALL}`);
  return false;
}

/** Runs `promtool check metrics` on a scrape: its exit status and what it printed. */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
