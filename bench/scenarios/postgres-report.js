// The PostgreSQL table and its target: ours ahead of Fastify on every endpoint.
import { fixed, markdownTable, paired, pairedText, ratio } from '../lib/stats.js';
import { TWO_NODES } from './postgres.js';

/** The markdown table: both CPU figures per request (the node processes', the database's), ratios paired. */
export function postgresTable(results) {
  const rows = [];
  for (const [endpoint, byName] of Object.entries(results)) {
    const peer = byName.get('Fastify');
    const one = byName.get('ours');
    for (const [name, s] of byName) {
      const notes = name === TWO_NODES ? `against 1 node: req/s ${pairedText(paired(s, one, 'rps'))}, CPU/req ${pairedText(paired(s, one))}` : '';
      rows.push([endpoint, name, fixed(s.rps), fixed(s.p50, 1), fixed(s.p99, 1), fixed(s.rssMb, 1), fixed(s.cpuUs), fixed(s.dbCpuUs),
        name === 'Fastify' ? '' : ratio(s.rps, peer.rps), name === 'Fastify' ? '' : pairedText(paired(peer, s)),
        [notes, s.failed > 0 ? `${s.failed} failed` : ''].filter(Boolean).join('; ')]);
    }
  }
  const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'server CPU µs/req', 'PostgreSQL CPU µs/req',
    'req/s × Fastify', 'CPU/req: Fastify ÷ ours (paired, range)', 'notes'];
  return markdownTable(header, rows);
}

/** The target on PostgreSQL: ours ahead of Fastify on every endpoint, by CPU per request. */
export function postgresTargets(results) {
  return Object.entries(results).map(([endpoint, byName]) => {
    const cpu = paired(byName.get('Fastify'), byName.get('ours'));
    const rps = byName.get('ours').rps / byName.get('Fastify').rps;
    const verdict = cpu.median > 1 ? (cpu.min > 1 ? 'met' : 'met in the median, not in every round') : 'MISSED';
    return `- ${verdict}: ${endpoint}, ours ahead of Fastify (CPU/req Fastify ÷ ours ${pairedText(cpu)}; req/s ${rps.toFixed(2)}×)`;
  }).join('\n');
}
