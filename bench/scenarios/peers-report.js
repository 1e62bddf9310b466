// The tables of the peers scenario (issue 19): every contender as ratios against both peers of its
// auth mode, CPU per request in the layout, the targets beside the measured ratios, what
// credentials cost (issues 17 and 18), and before/after with BENCH_BASELINE. CPU ratios are paired.
import { AUTH_LABEL, AUTH_MODES } from '../lib/credentials.js';
import { fixed, markdownTable, paired, pairedText, verdict } from '../lib/stats.js';
import { NEWEST } from './compare.js';
import { CREATE_FASTIFY_GOAL, outboxLine } from './compare-report.js';
import { BASELINE, FASTIFY, HANDWRITTEN, nameOf, OURS, REFERENCE } from './peers.js';

const ENDPOINT_LABEL = { ping: 'ping', list: 'list 50', create: 'create' };
const WHO = [HANDWRITTEN, FASTIFY, BASELINE, OURS, NEWEST];

// The issues' targets (19, 26 for the reference and the list against Fastify, 32 for the create
// against Fastify): [engine, endpoint, peer, lowest ratio peer ÷ ours].
const TARGETS = [
  ['sqlite', 'list', REFERENCE, 0.85],
  ['sqlite', 'list', HANDWRITTEN, 0.85],
  ['sqlite', 'list', FASTIFY, 1.5],
  ['sqlite', 'ping', HANDWRITTEN, 0.9],
  ['sqlite', 'create', FASTIFY, CREATE_FASTIFY_GOAL],
  ['postgres', 'list', FASTIFY, 1.2],
  ['postgres', 'create', FASTIFY, 1.2],
];

const targetOf = (engine, endpoint, peer) => TARGETS.find(([e, p, who]) => e === engine && p === endpoint && who === peer)?.[3];
const modesIn = (byName) => AUTH_MODES.filter((mode) => WHO.some((who) => byName.has(nameOf(who, mode))));

// The reference server has one row, with auth off, which every mode of ours is divided by.
const peerName = (peer, mode) => (peer === REFERENCE ? REFERENCE : nameOf(peer, mode));

const againstPeer = (byName, name, peer, mode) => {
  const peerSummary = byName.get(peerName(peer, mode));
  return peerSummary === undefined || name === peerName(peer, mode) ? '' : pairedText(paired(peerSummary, byName.get(name)));
};

/** Every contender of one engine, with CPU/req divided by each peer of its mode (above 1: it spends less). */
export function contendersTable(byEndpoint) {
  const rows = [];
  const row = (endpoint, byName, mode, who, name) => {
    const s = byName.get(name);
    if (s === undefined) return;
    rows.push([ENDPOINT_LABEL[endpoint], AUTH_LABEL[mode], who, fixed(s.rps), fixed(s.p99, 1), fixed(s.rssMb, 1), fixed(s.cpuUs), fixed(s.dbCpuUs),
      againstPeer(byName, name, REFERENCE, mode), againstPeer(byName, name, HANDWRITTEN, mode), againstPeer(byName, name, FASTIFY, mode), s.failed > 0 ? `${s.failed} failed` : '']);
  };
  for (const [endpoint, byName] of Object.entries(byEndpoint)) {
    row(endpoint, byName, 'off', REFERENCE, REFERENCE);
    for (const mode of modesIn(byName)) for (const who of WHO) row(endpoint, byName, mode, who, nameOf(who, mode));
  }
  const header = ['endpoint', 'auth', 'server', 'req/s', 'p99 ms', 'peak RSS MB', 'server CPU µs/req', 'database CPU µs/req',
    'CPU/req: reference ÷ this (paired, range)', 'CPU/req: hand-written ÷ this (paired, range)', 'CPU/req: Fastify ÷ this (paired, range)', 'notes'];
  // On PostgreSQL there is no hand-written peer (nor database CPU on SQLite): those columns go.
  const empty = header.map((_, column) => rows.every((row) => row[column] === '' || row[column] === '–'));
  const keep = (cells) => cells.filter((_, column) => !empty[column] || column === header.length - 1);
  return markdownTable(keep(header), rows.map(keep));
}

/** CPU µs per request in the layout: a row per server and mode, a column per endpoint. */
export function cpuTable(byEndpoint) {
  const endpoints = Object.keys(byEndpoint);
  const rows = [];
  if (endpoints.some((endpoint) => byEndpoint[endpoint].has(REFERENCE))) {
    rows.push([`${REFERENCE}, ${AUTH_LABEL.off}`, ...endpoints.map((endpoint) => fixed(byEndpoint[endpoint].get(REFERENCE)?.cpuUs))]);
  }
  for (const mode of AUTH_MODES) {
    for (const who of WHO) {
      const cells = endpoints.map((endpoint) => byEndpoint[endpoint].get(nameOf(who, mode)));
      if (cells.every((s) => s === undefined)) continue;
      rows.push([`${who}, ${AUTH_LABEL[mode]}`, ...cells.map((s) => (s === undefined ? '–' : fixed(s.cpuUs)))]);
    }
  }
  return markdownTable(['µs CPU per request (median of rounds)', ...endpoints.map((e) => ENDPOINT_LABEL[e])], rows);
}

/** The targets of issue 19, per mode: the paired ratio beside its goal, and whether it was met. */
export function targetsTable(engine, byEndpoint) {
  const rows = [];
  for (const [endpoint, byName] of Object.entries(byEndpoint)) {
    for (const mode of modesIn(byName)) {
      const mine = byName.get(nameOf(OURS, mode));
      for (const peer of [REFERENCE, HANDWRITTEN, FASTIFY]) {
        const goal = targetOf(engine, endpoint, peer);
        const theirs = byName.get(peerName(peer, mode));
        if (goal === undefined || theirs === undefined) continue;
        const p = mine === undefined ? { median: NaN } : paired(theirs, mine);
        rows.push([ENDPOINT_LABEL[endpoint], AUTH_LABEL[mode], `CPU/req ${peer} ÷ ours ≥ ${goal.toFixed(2)}×`, pairedText(p), mine === undefined ? 'ours not run' : verdict(p, goal)]);
      }
      if (engine === 'sqlite' && endpoint === 'create' && mine !== undefined && byName.has(nameOf(FASTIFY, mode))) {
        // Issue 26: peak RSS under the create load at most 1.5× Fastify's in the same run.
        const theirs = byName.get(nameOf(FASTIFY, mode)).rssMb;
        rows.push(['create', AUTH_LABEL[mode], 'peak RSS ours ≤ 1.5 × Fastify', `${fixed(mine.rssMb, 1)} MB against ${fixed(theirs, 1)} MB (${fixed(mine.rssMb / theirs, 2)}×)`, mine.rssMb <= 1.5 * theirs ? 'met' : 'MISSED']);
      }
    }
  }
  return markdownTable(['endpoint', 'auth', 'target', 'measured (median, range over rounds)', 'verdict'], rows);
}

// What a mode costs a server against auth off: its CPU per request in that mode ÷ off, paired.
function costCell(byName, who, mode, base = 'off') {
  const [on, off] = [byName.get(nameOf(who, mode)), byName.get(nameOf(who, base))];
  return on === undefined || off === undefined ? '–' : pairedText(paired(on, off));
}

/**
 * What credentials cost (issues 17 and 18): each server's CPU/req with keys and with tokens ÷ off,
 * tokens ÷ keys; then the two rules: with keys ours stays as far ahead of Fastify as without auth,
 * and a token costs no more than the list request itself (tokens ÷ off ≤ 2 on list).
 */
export function credentialsTable(byEndpoint) {
  const rows = [];
  const lines = [];
  for (const [endpoint, byName] of Object.entries(byEndpoint)) {
    for (const who of [HANDWRITTEN, FASTIFY, OURS]) {
      if (!byName.has(nameOf(who, 'off'))) continue;
      rows.push([ENDPOINT_LABEL[endpoint], who, costCell(byName, who, 'keys'), costCell(byName, who, 'jwt'), costCell(byName, who, 'jwt', 'keys')]);
    }
    const lead = (mode) => (byName.has(nameOf(OURS, mode)) && byName.has(nameOf(FASTIFY, mode)) ? paired(byName.get(nameOf(FASTIFY, mode)), byName.get(nameOf(OURS, mode))) : null);
    const [off, keys] = [lead('off'), lead('keys')];
    if (off !== null && keys !== null) {
      lines.push(`- ${keys.median >= off.median ? 'met' : 'MISSED'}: ${ENDPOINT_LABEL[endpoint]}, with keys ours stays as far ahead of Fastify as with auth off (Fastify ÷ ours ${pairedText(keys)} with keys, ${pairedText(off)} off)`);
    }
    if (endpoint === 'list' && byName.has(nameOf(OURS, 'jwt')) && byName.has(nameOf(OURS, 'off'))) {
      const cost = paired(byName.get(nameOf(OURS, 'jwt')), byName.get(nameOf(OURS, 'off')));
      lines.push(`- ${verdict({ median: 2 / cost.median, min: 2 / cost.max }, 1)}: list 50, verifying a token costs ours no more than the list request does (CPU/req tokens ÷ off ≤ 2.00×: ${pairedText(cost)})`);
    }
  }
  const table = markdownTable(['endpoint', 'server', 'CPU/req keys ÷ off', 'CPU/req tokens ÷ off', 'CPU/req tokens ÷ keys'], rows);
  return lines.length === 0 ? table : `${table}\n\n${lines.join('\n')}`;
}

/**
 * Before and after (BENCH_BASELINE, `ref`): ours ÷ the baseline per endpoint and mode, and each one's
 * ratios against the peers; then issue 32's target for the create in each mode.
 */
export function peersBaselineTable(byEndpoint, ref) {
  const rows = [];
  const lines = [];
  for (const [endpoint, byName] of Object.entries(byEndpoint)) {
    for (const mode of modesIn(byName)) {
      const [now, then] = [byName.get(nameOf(OURS, mode)), byName.get(nameOf(BASELINE, mode))];
      if (now === undefined || then === undefined) continue;
      const against = (peer, s) => (byName.has(nameOf(peer, mode)) ? pairedText(paired(byName.get(nameOf(peer, mode)), s)) : '–');
      rows.push([ENDPOINT_LABEL[endpoint], AUTH_LABEL[mode], fixed(now.cpuUs), fixed(then.cpuUs), pairedText(paired(now, then)),
        against(HANDWRITTEN, then), against(HANDWRITTEN, now), against(FASTIFY, then), against(FASTIFY, now)]);
      if (endpoint === 'create') lines.push(outboxLine(now, then, ref, `create, ${AUTH_LABEL[mode]}`));
    }
  }
  const table = markdownTable(['endpoint', 'auth', 'ours CPU µs/req', 'baseline CPU µs/req', 'CPU/req ours ÷ baseline (paired, range)',
    'before: hand-written ÷ baseline', 'after: hand-written ÷ ours', 'before: Fastify ÷ baseline', 'after: Fastify ÷ ours'], rows);
  return lines.length === 0 ? table : `${table}\n\nTarget (issue 32):\n${lines.join('\n')}`;
}
