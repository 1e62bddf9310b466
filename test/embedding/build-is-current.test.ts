import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { staleBuildReason } from '../support/build-freshness.ts';

// The tests of this folder import the package by name and pack it: they run on dist/, never on src/.
test('dist/ is the build of src/ as it is now (`npm run test:suite` and `npm run test:postgres` build first)', () => {
  const stale = staleBuildReason();
  assert.equal(stale, null, `${stale}: the package tests would test an old build; run \`npm run build\``);
});

// A checkout of its own, so the check itself is shown to catch each kind of staleness.
function fakeCheckout(t: { after(fn: () => void): void }): { root: string; write(path: string, at: number): void } {
  const root = mkdtempSync(join(tmpdir(), 'svc-build-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, at: number): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), '');
    utimesSync(join(root, path), at, at);
  };
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) write(config, 1_000);
  write('src/a.ts', 2_000);
  write('src/http/b.ts', 2_000);
  write('dist/a.js', 3_000);
  write('dist/http/b.js', 3_000);
  return { root, write };
}

test('the check catches an edited, an added and a removed source, and changed build settings', (t) => {
  const edited = fakeCheckout(t);
  assert.equal(staleBuildReason(edited.root), null);
  edited.write('src/http/b.ts', 4_000);
  assert.equal(staleBuildReason(edited.root), 'src/http/b.ts changed after dist/ was built');

  const added = fakeCheckout(t);
  added.write('src/c.ts', 2_000);
  assert.equal(staleBuildReason(added.root), 'dist/ has no build of src/c.ts');

  const removed = fakeCheckout(t);
  removed.write('dist/gone.js', 3_000);
  assert.equal(staleBuildReason(removed.root), 'dist/gone.js has no source in src/');

  const settings = fakeCheckout(t);
  settings.write('tsconfig.build.json', 5_000);
  assert.match(staleBuildReason(settings.root) ?? '', /build settings changed/);
});
