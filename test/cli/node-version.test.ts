import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { unsupportedNodeMessage } from '../../bin/node-check.js';
import { BIN, runBin } from '../support/cli.ts';

const SEARCHED = 'the PATH outside node_modules, /usr/local/bin or /usr/bin';
const HOW = 'install one beside the pinned Node, e.g. `npm install --prefix /tmp/old-node node@20`, and set SVC_TEST_OLD_NODE=/tmp/old-node/node_modules/.bin/node';

// A Node binary and its version, when it runs and is older than this service supports.
function oldNodeAt(path: string): { path: string; version: string } | undefined {
  try {
    accessSync(path, constants.X_OK);
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
    return unsupportedNodeMessage(version) === null ? undefined : { path, version };
  } catch {
    return undefined;
  }
}

// SVC_TEST_OLD_NODE when set (and then it must be an old Node), else the machine's own Node (v20 on
// these machines), not the pinned one npm puts in node_modules/.bin.
function findOldNode(): { path: string; version: string } | string {
  const named = process.env['SVC_TEST_OLD_NODE'] ?? '';
  if (named !== '') return oldNodeAt(named) ?? `SVC_TEST_OLD_NODE=${named} is not a runnable Node older than 22.18`;
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules'));
  for (const dir of [...dirs, '/usr/local/bin', '/usr/bin']) {
    const found = oldNodeAt(join(dir, 'node'));
    if (found !== undefined) return found;
  }
  return `SVC_TEST_OLD_NODE is unset and no Node older than 22.18 is in ${SEARCHED}`;
}

const oldNode = findOldNode();

for (const script of [BIN.serve, BIN.migrate]) {
  test(`${script.split('/').at(-1)} started by an old Node says which version it needs`, async (t) => {
    if (typeof oldNode === 'string') {
      // CI must run what it claims to: there a missing old Node is a failure, not a skip.
      if (process.env['CI'] === 'true') assert.fail(`${oldNode}, and CI=true: ${HOW}`);
      t.skip(`${oldNode}; ${HOW} (the unit test of unsupportedNodeMessage still runs)`);
      return;
    }
    t.diagnostic(`old Node: ${oldNode.path} ${oldNode.version}`);
    const args = script === BIN.migrate ? ['--status'] : [];
    const result = await runBin(script, args, { node: oldNode.path, env: { SVC_DB_PATH: '/nonexistent/never.db' } });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, unsupportedNodeMessage(oldNode.version));
    assert.match(result.stderr, /22\.18\.0 or newer/);
  });
}
