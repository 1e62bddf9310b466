// The tables of the side by side: every contender, the targets, the newest API version against the
// default, before/after (BENCH_BASELINE) with issue 32's create targets, and what metrics cost
// (BENCH_METRICS=both). CPU ratios are paired: divided round by round, then the median.
import { fixed, markdownTable, paired, pairedText, ratio, verdict, verdictAtMost } from '../lib/stats.js';
import { BASELINE, BASELINE_PEER, FLOOR, METRICS_ON, NEWEST } from './compare.js';

// Each of ours is compared with the Fastify that logs the same way.
// The baseline build is compared with the Fastify peer of its own commit, which does its version's work.
const PEER = { ours: 'Fastify', 'ours, logs on': 'Fastify + pino', 'ours, durability normal': 'Fastify', [METRICS_ON]: 'Fastify', [NEWEST]: 'Fastify', [FLOOR]: 'Fastify', [BASELINE]: BASELINE_PEER };

// Issue 31: the newest API version costs at most 10% more CPU per request than the default.
const NEWEST_GOAL = 1.1;
// Issue 32: a create with events gives at least 0.9× the creates per CPU second of the build before
// them (b433c7c), and at least 1.5× Fastify's.
export const OUTBOX_GOAL = 0.9;
export const CREATE_FASTIFY_GOAL = 1.5;

/** Issue 32's line for the outbox: the baseline's CPU per create ÷ ours (`then` ÷ `now`) against OUTBOX_GOAL. */
export function outboxLine(now, then, ref, label = 'create') {
  const p = paired(then, now);
  return `- ${verdict(p, OUTBOX_GOAL)}: ${label}: HEAD ≥ ${OUTBOX_GOAL}× ${ref}'s throughput per CPU (i.e. CPU per create ≤ 1/${OUTBOX_GOAL} of ${ref}'s): CPU/req ${ref} ÷ HEAD ${pairedText(p)}; HEAD ÷ ${ref} ${pairedText(paired(now, then))}`;
}

/** The markdown table of the comparison. */
export function compareTable(results) {
  const rows = [];
  for (const endpoint of Object.keys(results)) {
    const byName = results[endpoint];
    const top = byName.get('node:http ceiling');
    for (const [name, s] of byName) {
      const peer = byName.get(PEER[name]);
      rows.push([
        endpoint, name, fixed(s.rps), fixed(s.p50, 1), fixed(s.p99, 1), fixed(s.rssMb, 1), fixed(s.cpuUs),
        peer ? ratio(s.rps, peer.rps) : '', peer ? `${paired(peer, s).median.toFixed(2)}×` : '', top && name !== top ? ratio(s.rps, top.rps) : '',
        s.failed > 0 ? `${s.failed} failed` : '',
      ]);
    }
  }
  const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'server CPU µs/req',
    'req/s × Fastify (same logging)', 'CPU/req: Fastify ÷ ours (paired)', 'req/s × ceiling', 'notes'];
  return markdownTable(header, rows);
}

/** The targets, each with the measured value and whether it was met. */
export function compareTargets(results) {
  const get = (endpoint, name) => results[endpoint]?.get(name);
  const rps = (endpoint, name) => get(endpoint, name)?.rps ?? NaN;
  const cpu = (endpoint, name, peer) => paired(get(endpoint, peer), get(endpoint, name)).median;
  const targets = [
    ['ping, logs off: ours ≥ 1.05× Fastify', 'ping', 'ours', 'Fastify', 1.05],
    ['ping, logs off: ours ≥ 0.85× ceiling', 'ping', 'ours', 'node:http ceiling', 0.85],
    ['list, logs off: ours ≥ 1.5× Fastify', 'list', 'ours', 'Fastify', 1.5],
    ['create, logs off: ours (durable) ≥ 1.2× Fastify (NORMAL)', 'create', 'ours', 'Fastify', 1.2],
    ['ping, logs on: ours ≥ 1.25× Fastify + pino', 'ping', 'ours, logs on', 'Fastify + pino', 1.25],
  ];
  const lines = [];
  for (const [what, endpoint, name, peer, goal] of targets) {
    const value = rps(endpoint, name) / rps(endpoint, peer);
    if (!Number.isFinite(value)) continue;
    lines.push(`- ${value >= goal ? 'met' : 'MISSED'}: ${what} (measured ${value.toFixed(2)}× req/s; CPU/req ${peer} ÷ ${name}, paired: ${fixed(cpu(endpoint, name, peer), 2)}×)`);
  }
  for (const endpoint of Object.keys(results)) {
    for (const [name, peer] of [['ours', 'Fastify'], ['ours, logs on', 'Fastify + pino']]) {
      const mine = get(endpoint, name).rssMb;
      const theirs = get(endpoint, peer).rssMb;
      lines.push(`- ${mine <= theirs ? 'met' : 'MISSED'}: ${endpoint}, peak RSS of ${name} ≤ ${peer} (${mine.toFixed(1)} MB against ${theirs.toFixed(1)} MB)`);
    }
  }
  return lines.join('\n');
}

/**
 * The newest API version (its requests send Api-Version) against the default, the same build in
 * adjacent turns, per endpoint: CPU per request and req/s, paired, then the target of issue 31.
 * The peers part names the two `ours, off` and `ours, newest version, off`.
 */
export function newestTable(results, standardName = 'ours', newestName = NEWEST) {
  const rows = [];
  const lines = [];
  for (const [endpoint, byName] of Object.entries(results)) {
    const [standard, newest] = [byName.get(standardName), byName.get(newestName)];
    if (standard === undefined || newest === undefined) continue;
    const cpu = paired(newest, standard);
    rows.push([endpoint, fixed(standard.cpuUs), fixed(newest.cpuUs), pairedText(cpu), pairedText(paired(newest, standard, 'rps'))]);
    lines.push(`- ${verdictAtMost(cpu, NEWEST_GOAL)}: ${endpoint}, newest version within 10% of the default (≤ ${NEWEST_GOAL.toFixed(2)}×): CPU/req newest ÷ default ${pairedText(cpu)}`);
  }
  const table = markdownTable(['endpoint', 'default CPU µs/req', 'newest CPU µs/req', 'CPU/req newest ÷ default (paired, range)', 'req/s newest ÷ default'], rows);
  return `${table}\n\nTarget (issue 31):\n${lines.join('\n')}`;
}

/**
 * Issue 32's create targets, paired CPU per create: ours against the baseline build (when one ran:
 * `ref` names it) and against Fastify.
 */
export function createTargets(results, ref) {
  const create = results.create;
  if (create === undefined) return '- not measured: create (BENCH_ENDPOINTS has no create)';
  const [now, then, peer] = [create.get('ours'), create.get(BASELINE), create.get('Fastify')];
  const lines = [then === undefined
    ? `- not measured: create: HEAD ≥ ${OUTBOX_GOAL}× the baseline's throughput per CPU (no baseline ran: BENCH_BASELINE=none)`
    : outboxLine(now, then, ref)];
  const p = paired(peer, now);
  lines.push(`- ${verdict(p, CREATE_FASTIFY_GOAL)}: create ≥ ${CREATE_FASTIFY_GOAL}× Fastify (CPU/req Fastify ÷ ours ${pairedText(p)})`);
  const floor = create.get(FLOOR);
  if (floor !== undefined) {
    lines.push(`- for scale, the create floor (the same durable row and event, none of the rules): CPU/req Fastify ÷ floor ${pairedText(paired(peer, floor))}, ` +
      `about the most a node:http server making this write reaches here; ours ÷ floor ${pairedText(paired(now, floor))}, what the service's rules cost above it`);
  }
  return lines.join('\n');
}

/**
 * Ours against the baseline build, per endpoint: the paired CPU ratio, and the ratio against Fastify
 * after (today's peer ÷ ours) and before (the baseline's peer ÷ the baseline, both doing that version's work).
 */
export function baselineTable(results) {
  const rows = Object.entries(results).map(([endpoint, byName]) => {
    const [now, then, peer, peerThen] = [byName.get('ours'), byName.get(BASELINE), byName.get('Fastify'), byName.get(BASELINE_PEER)];
    return [endpoint, fixed(now.cpuUs), fixed(then.cpuUs), pairedText(paired(now, then)), pairedText(paired(now, then, 'rps')),
      pairedText(paired(peer, now)), peerThen ? pairedText(paired(peerThen, then)) : ''];
  });
  return markdownTable(['endpoint', 'ours CPU µs/req', 'baseline CPU µs/req', 'CPU/req ours ÷ baseline (paired, range)', 'req/s ours ÷ baseline',
    'after: CPU/req Fastify ÷ ours', 'before: CPU/req Fastify ÷ ours (both at the baseline)'], rows);
}

/** What metrics cost, per endpoint: CPU per request and req/s with metrics on over off, paired. */
export function metricsTable(results) {
  const rows = Object.entries(results).map(([endpoint, byName]) => {
    const [off, on] = [byName.get('ours'), byName.get(METRICS_ON)];
    return [endpoint, fixed(off.cpuUs), fixed(on.cpuUs), pairedText(paired(on, off)), pairedText(paired(on, off, 'rps'))];
  });
  return markdownTable(['endpoint', 'CPU µs/req metrics off', 'metrics on', 'CPU/req on ÷ off', 'req/s on ÷ off'], rows);
}
