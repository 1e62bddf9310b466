import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { unsupportedNodeMessage } from '../../bin/node-check.js';
import { BIN, runBin } from '../support/cli.ts';

// The machine's own Node (v20 on these machines), not the pinned one npm puts in node_modules/.bin.
function findOldNode(): { path: string; version: string } | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules'));
  for (const dir of [...dirs, '/usr/local/bin', '/usr/bin']) {
    const path = join(dir, 'node');
    try {
      accessSync(path, constants.X_OK);
      const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
      if (unsupportedNodeMessage(version) !== null) return { path, version };
    } catch {
      // Not there, or not runnable: try the next folder.
    }
  }
  return undefined;
}

const oldNode = findOldNode();

for (const script of [BIN.serve, BIN.migrate]) {
  test(`${script.split('/').at(-1)} started by an old Node says which version it needs`, async (t) => {
    if (oldNode === undefined) {
      t.skip('no Node older than 22.18 on this machine; the unit test of unsupportedNodeMessage still holds');
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
