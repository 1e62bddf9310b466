// Reads a V8 .cpuprofile: self time by function, and total (inclusive) time of the service's own functions.

function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i + 1] ?? 0)));
  return { byId, self };
}

const label = (frame, root) => `${frame.functionName || '(anonymous)'} ${frame.url.replace(`file://${root}`, '').replace(/^node:/, 'node:')}:${frame.lineNumber + 1}`;

/** The top functions by self time, and the service's functions by inclusive time, as text. */
export function summarizeProfile(profile, root, top = 30) {
  const { byId, self } = selfTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const bySelf = new Map();
  for (const [id, time] of self) {
    const key = label(byId.get(id).callFrame, root);
    bySelf.set(key, (bySelf.get(key) ?? 0) + time);
  }
  // Inclusive time: a node's self time plus its descendants', counted once per function per stack.
  const inclusive = new Map();
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  for (const [id, time] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!frame.url.includes(root) || frame.url.includes('node_modules')) continue;
      const key = label(frame, root);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + time);
    }
  }
  const pct = (time) => `${((100 * time) / total).toFixed(1).padStart(5)}%`;
  const lines = ['self time (all code):'];
  for (const [key, time] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(time)}  ${key}`);
  lines.push('inclusive time (service code):');
  for (const [key, time] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(time)}  ${key}`);
  return lines.join('\n');
}
