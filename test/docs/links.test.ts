import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The repository stands alone: its README and served OpenAPI document are the reference, so no file
// may point at a path outside it, or at a file it does not have.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = /\.(md|ts|js|json|sql|yaml|yml|sh)$|^\.ci\/run$|^\.gitignore$/;

function trackedTextFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return listed.filter((file) => file !== '' && TEXT.test(file) && !file.endsWith('package-lock.json') && existsSync(join(ROOT, file)));
}

// Markdown links and images `[text](target)` and reference definitions `[id]: target`.
function linkTargets(text: string): string[] {
  const inline = [...text.matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const references = [...text.matchAll(/^\s*\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string);
  return [...inline, ...references];
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** Every problem with the relative links of `file`: a target outside the repository, or missing. */
export function brokenLinks(root: string, file: string, text: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (isExternal(target) || target.startsWith('#')) continue;
    const path = decodeURIComponent(target.split('#')[0] ?? '');
    const absolute = resolve(dirname(join(root, file)), path);
    const inside = relative(root, absolute);
    if (inside.startsWith(`..${sep}`) || inside === '..') problems.push(`${file}: ${target} points outside the repository`);
    else if (!existsSync(absolute)) problems.push(`${file}: ${target} does not exist`);
  }
  return problems;
}

test('the checker itself: an outside path and a missing file are caught, good links pass', () => {
  // Built from parts, so this file holds no outside link or unknown file name itself.
  const outside = ['..', 'shared', 'CONTRACT.' + 'md'].join('/');
  const missing = 'nowhere.' + 'md';
  const text = `[a](${outside}) [b](README.md#quick-start) [c](${missing}) [d](https://example.com/x.${'md'}) ![e](bench/README.md)\n[ref]: ../../etc/passwd`;
  assert.deepEqual(brokenLinks(ROOT, 'README.md', text), [
    `README.md: ${outside} points outside the repository`,
    `README.md: ${missing} does not exist`,
    'README.md: ../../etc/passwd points outside the repository',
  ]);
});

test('no tracked file links to a path outside the repository or to a file that does not exist', () => {
  const markdown = trackedTextFiles().filter((file) => file.endsWith('.md'));
  const problems = markdown.flatMap((file) => brokenLinks(ROOT, file, readFileSync(join(ROOT, file), 'utf8')));
  assert.deepEqual(problems, []);
});

// Written by a run, never committed: the benchmark's reports (bench/results/ is ignored).
const GENERATED = ['latest.md', 'pg-clients.md', 'pg-clients-checks.md'];

test('every Markdown file name mentioned in a tracked file is a file of the repository', () => {
  const names = new Set([...trackedTextFiles().map((file) => basename(file)), ...GENERATED]);
  const problems: string[] = [];
  for (const file of trackedTextFiles()) {
    for (const [name] of readFileSync(join(ROOT, file), 'utf8').matchAll(/\b[\w-]+\.md\b/g)) {
      if (!names.has(name)) problems.push(`${file} mentions ${name}, which the repository does not have`);
    }
  }
  assert.deepEqual(problems, []);
});

test('README section links (#anchors) name sections that exist', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  // GitHub's slugs: lower case, punctuation dropped, spaces to hyphens.
  const slugs = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map((m) => (m[1] as string).toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
  const anchors = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
  assert.deepEqual(anchors.filter((anchor) => !slugs.has(anchor)), []);
});
