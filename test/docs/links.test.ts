import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, posix, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { anchorsOf, headings, githubSlug, isExternal, linkTargets } from './markdown.ts';

// The repository stands alone: its README, docs/ and served OpenAPI document are the reference, so no
// file may point at a path outside it, at a file or a section it does not have, or at the contract
// the project was built from.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEXT = /\.(md|ts|js|json|sql|yaml|yml|sh)$|^\.ci\/run$|^\.gitignore$/;
// The contract lives outside the repository; a link naming it would lead a reader nowhere.
const CONTRACT = /(^|\/)API\.md(#|$)/;

// Tracked files and new ones not ignored, so a page is checked before its first commit too.
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return [...new Set(listed)].filter((file) => file !== '' && TEXT.test(file) && !file.endsWith('package-lock.json') && existsSync(join(ROOT, file)));
}

const markdownFiles = (): string[] => repositoryFiles().filter((file) => file.endsWith('.md'));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Where a relative link of `file` leads: a repository path (forward slashes) and its anchor, if any. */
function resolveLink(file: string, target: string): { path: string; anchor: string | undefined } {
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? file : posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(pathPart)));
  return { path, anchor: anchor === undefined ? undefined : decodeURIComponent(anchor) };
}

/** Every problem with the links of `file`: outside the repository, missing, a missing section, the contract. */
export function brokenLinks(root: string, file: string, text: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (isExternal(target)) {
      if (/^https?:/i.test(target) && CONTRACT.test(new URL(target).pathname)) problems.push(`${file}: ${target} names the contract, which is not part of the repository`);
      continue;
    }
    const { path, anchor } = resolveLink(file, target);
    const inside = relative(root, join(root, path));
    if (inside.startsWith(`..${sep}`) || inside === '..' || path.startsWith('../')) problems.push(`${file}: ${target} points outside the repository`);
    else if (CONTRACT.test(path)) problems.push(`${file}: ${target} names the contract, which is not part of the repository`);
    else if (!existsSync(join(root, path))) problems.push(`${file}: ${target} does not exist`);
    else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(readFileSync(join(root, path), 'utf8')).has(anchor)) {
      problems.push(`${file}: ${target} names a section ${path} does not have`);
    } else if (anchor !== undefined && statSync(join(root, path)).isDirectory()) problems.push(`${file}: ${target} puts an anchor on a folder`);
  }
  return problems;
}

test('the checker itself: outside paths, missing files and sections, and the contract are caught; good links pass', () => {
  // Built from parts, so this file holds no outside link or unknown file name itself.
  const outside = ['..', 'shared', 'CONTRACT.' + 'md'].join('/');
  const missing = 'nowhere.' + 'md';
  const contract = 'API.' + 'md';
  const text = [
    `[a](${outside}) [b](README.md#quick-start) [c](${missing}) [d](https://example.com/x.${'md'}) ![e](bench/README.md)`,
    `[f](README.md#no-such-section) [g](#a-five-minute-tour) [h](https://example.com/repo/blob/main/${contract}#2-endpoints)`,
    '`[in code](nowhere)` and [i](docs/api.md#get-apiproductsid)',
    '```',
    `[in a fence](${missing})`,
    '```',
    '[ref]: ../../etc/passwd',
  ].join('\n');
  assert.deepEqual(brokenLinks(ROOT, 'README.md', text), [
    `README.md: ${outside} points outside the repository`,
    `README.md: ${missing} does not exist`,
    'README.md: README.md#no-such-section names a section README.md does not have',
    `README.md: https://example.com/repo/blob/main/${contract}#2-endpoints names the contract, which is not part of the repository`,
    'README.md: ../../etc/passwd points outside the repository',
  ]);
});

test("anchors are GitHub's: lower case, punctuation dropped, code and links kept as text, repeats numbered", () => {
  assert.equal(githubSlug('GET /api/ping: readiness (never cached, not rate-limited)'), 'get-apiping-readiness-never-cached-not-rate-limited');
  assert.equal(githubSlug('Errors (RFC 9457, `application/problem+json`)'), 'errors-rfc-9457-applicationproblemjson');
  assert.equal(githubSlug('ETags and conditional requests (RFC 9110 §13)'), 'etags-and-conditional-requests-rfc-9110-13');
  assert.equal(githubSlug("The generator's own package"), 'the-generators-own-package');
  assert.equal(githubSlug('Why [`pg`](https://node-postgres.com) (node-postgres)'), 'why-pg-node-postgres');
  assert.equal(githubSlug('SVC_API_TOKEN'), 'svc_api_token');
  assert.deepEqual([...anchorsOf('# A\n## Step\n```\n# HELP not a heading\n```\n## Step\n<a id="here"></a>')], ['a', 'step', 'step-1', 'here']);
});

test('every link and section link of every Markdown file resolves inside the repository', () => {
  const problems = markdownFiles().flatMap((file) => brokenLinks(ROOT, file, read(file)));
  assert.deepEqual(problems, []);
});

// Written by a run, never committed: the benchmark's reports (bench/results/ is ignored).
const GENERATED = ['latest.md', 'pg-clients.md', 'pg-clients-checks.md', 'streams.md'];

test('every Markdown file name mentioned in a tracked file is a file of the repository', () => {
  const names = new Set([...repositoryFiles().map((file) => basename(file)), ...GENERATED]);
  const problems: string[] = [];
  for (const file of repositoryFiles()) {
    for (const [name] of read(file).matchAll(/\b[\w-]+\.md\b/g)) {
      if (!names.has(name)) problems.push(`${file} mentions ${name}, which the repository does not have`);
    }
  }
  assert.deepEqual(problems, []);
});

// The pages a reader can reach from the README by following relative links.
function reachableFromReadme(): Set<string> {
  const reached = new Set(['README.md']);
  const queue = ['README.md'];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of linkTargets(read(file))) {
      if (isExternal(target)) continue;
      const { path } = resolveLink(file, target);
      if (path.endsWith('.md') && existsSync(join(ROOT, path)) && !reached.has(path)) {
        reached.add(path);
        queue.push(path);
      }
    }
  }
  return reached;
}

const docsPages = (): string[] => markdownFiles().filter((file) => file.startsWith('docs/'));

test("every page of docs/ is listed in the README's Documentation section, and so reachable from it", () => {
  const reached = reachableFromReadme();
  assert.deepEqual(docsPages().filter((page) => !reached.has(page)), []);
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('\n## Documentation\n'));
  const listed = new Set(linkTargets(section).map((target) => resolveLink('README.md', target).path));
  assert.deepEqual(docsPages().filter((page) => !listed.has(page)), []);
});

test('every page of docs/ opens with a table of contents that links each of its sections', () => {
  const problems: string[] = [];
  for (const page of docsPages()) {
    const text = read(page);
    const contents = text.slice(0, text.search(/^## /m));
    const listed = new Set(linkTargets(contents).filter((target) => target.startsWith('#')).map((target) => target.slice(1)));
    const sections = headings(text).filter((h) => h.level === 2).map((h) => githubSlug(h.text));
    for (const slug of sections) if (!listed.has(slug)) problems.push(`${page}: the contents do not link #${slug}`);
    if (headings(text)[0]?.level !== 1) problems.push(`${page}: does not start with one # title`);
  }
  assert.deepEqual(problems, []);
});

test('the README stays an entry: under 12 KB, the reference in docs/', () => {
  assert.ok(statSync(join(ROOT, 'README.md')).size < 12 * 1024, 'put reference text in the page of docs/ whose topic it is');
});
