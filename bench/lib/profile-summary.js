// Reads a V8 .cpuprofile: self time by function, by file and by source line of the checkout's own
// code, and the inclusive time of the checkout's functions. Times are shown as a share of the busy
// time (everything but idle) and, given the requests answered, as µs per request (profiler overhead
// included, so larger than the benchmark's figures; the shares are what to read).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i + 1] ?? 0)));
  return { byId, self };
}

// `roots`: the folders whose code is "the checkout's" (the checkout, or the installed package's
// folder when the compiled build runs); paths are shown relative to them.
const rootOf = (url, roots) => roots.find((root) => url.startsWith(`file://${root}`));
const shortUrl = (url, roots) => {
  const root = rootOf(url, roots);
  return root === undefined ? url : url.slice(`file://${root}`.length);
};
const label = (frame, roots) => `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url, roots)}:${frame.lineNumber + 1}`;
const isOwn = (frame, roots) => rootOf(frame.url, roots) !== undefined && !shortUrl(frame.url, roots).includes('node_modules/');

// A file's name, or for code without one (natives, GC, idle) the function's name in brackets.
const fileOf = (frame, roots) => (frame.url === '' ? `[${frame.functionName || 'native'}]` : shortUrl(frame.url, roots));

function addTo(map, key, time) {
  map.set(key, (map.get(key) ?? 0) + time);
}

const sorted = (map, top) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);

// Source lines of the checkout, read once per file, for the hot-lines section.
function sourceLine(url, line) {
  try {
    return readFileSync(fileURLToPath(url), 'utf8').split('\n')[line - 1]?.trim().slice(0, 110) ?? '';
  } catch {
    return '';
  }
}

// Self time of each own source line, from the ticks V8 records per line of each profile node.
function hotLines(byId, self, roots) {
  const lines = new Map();
  for (const [id, time] of self) {
    const node = byId.get(id);
    if (!isOwn(node.callFrame, roots) || !node.positionTicks?.length) continue;
    const ticks = node.positionTicks.reduce((sum, tick) => sum + tick.ticks, 0);
    for (const tick of node.positionTicks) addTo(lines, `${node.callFrame.url}#${tick.line}`, (time * tick.ticks) / ticks);
  }
  return lines;
}

// Inclusive time: a node's self time plus its descendants', counted once per function per stack.
function inclusiveTimes(profile, byId, self, roots) {
  const inclusive = new Map();
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  for (const [id, time] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!isOwn(frame, roots)) continue;
      const key = label(frame, roots);
      if (seen.has(key)) continue;
      seen.add(key);
      addTo(inclusive, key, time);
    }
  }
  return inclusive;
}

/**
 * The profile as text: self time by function (all code), by file, by line of the checkout's code,
 * and the checkout's functions by inclusive time. `requests`: answered while profiling, for µs/req.
 */
export function summarizeProfile(profile, roots, { requests = 0, top = 30 } = {}) {
  const { byId, self } = selfTimes(profile);
  const bySelf = new Map();
  const byFile = new Map();
  let idle = 0;
  for (const [id, time] of self) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') {
      idle += time;
      continue;
    }
    addTo(bySelf, label(frame, roots), time);
    addTo(byFile, fileOf(frame, roots), time);
  }
  const busy = [...bySelf.values()].reduce((a, b) => a + b, 0);
  // Profile times are in µs.
  const cell = (time) => `${((100 * time) / busy).toFixed(1).padStart(5)}%${requests > 0 ? `  ${(time / requests).toFixed(2).padStart(6)} µs/req` : ''}`;
  const lines = [`busy ${(busy / 1e6).toFixed(2)} s of ${((busy + idle) / 1e6).toFixed(2)} s sampled; ${requests} requests; shares are of the busy time`];
  lines.push('', 'self time by function (all code; idle left out):');
  for (const [key, time] of sorted(bySelf, top)) lines.push(`  ${cell(time)}  ${key}`);
  lines.push('', 'self time by file ([name]: code with no file: natives, GC, the VM itself):');
  for (const [key, time] of sorted(byFile, 20)) lines.push(`  ${cell(time)}  ${key}`);
  lines.push('', "self time by line of the checkout's code (a native call, such as SQLite's or JSON.stringify, counts on the line that calls it):");
  for (const [key, time] of sorted(hotLines(byId, self, roots), 20)) {
    const [url, line] = key.split('#');
    lines.push(`  ${cell(time)}  ${shortUrl(url, roots)}:${line}  ${sourceLine(url, Number(line))}`);
  }
  lines.push('', "inclusive time (the checkout's functions):");
  for (const [key, time] of sorted(inclusiveTimes(profile, byId, self, roots), top)) lines.push(`  ${cell(time)}  ${key}`);
  return lines.join('\n');
}

/**
 * The server's profile in `folder`. bin/serve.js starts Node again (execve) with its GC flags: the
 * process before that leaves a small profile of its own start-up too; the server's is the largest.
 */
export function serverProfileIn(folder) {
  const file = readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort((a, b) => statSync(join(folder, b)).size - statSync(join(folder, a)).size)[0];
  return JSON.parse(readFileSync(join(folder, file), 'utf8'));
}
