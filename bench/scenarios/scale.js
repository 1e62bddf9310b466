// Scale: the same service on 1,000 and on 1,000,000 products; list pages (first and deep) and creates.
import { copyOf, seededDatabase } from '../lib/database.js';
import { withServers } from '../lib/processes.js';
import { checkAnswer, REQUESTS } from '../lib/requests.js';
import { runRounds } from '../lib/rounds.js';
import { currentBuild, ours } from '../lib/servers.js';
import { fixed, markdownTable, ratio } from '../lib/stats.js';
import { encodeCursor } from '../../src/shared/paging.ts';

const SMALL = 1_000;

// A page half-way down the cursor chain: what a client gets after following `next` rows/100 times.
function deepPage(rows) {
  return { ...REQUESTS.list, path: `/api/products?limit=50&cursor=${encodeCursor('products', Math.floor(rows / 2))}` };
}

/** Runs list (first page), list (deep page) and create on a small and a large database, alternating. */
export async function runScale({ dir, template1k, options }) {
  const largeRows = options.scaleRows;
  options.log(`\n## scale: seeding ${largeRows.toLocaleString('en')} products`);
  const started = Date.now();
  const templateLarge = seededDatabase(dir, 'scale-template', largeRows, currentBuild().migrate);
  options.log(`  seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const names = { small: `ours, ${SMALL.toLocaleString('en')} rows`, large: `ours, ${largeRows.toLocaleString('en')} rows` };
  const rowsOf = (server) => (server.name === names.small ? SMALL : largeRows);
  const cases = {
    'list, first page': () => REQUESTS.list,
    'list, deep page': (server) => deepPage(rowsOf(server)),
    create: () => REQUESTS.create,
  };
  const results = {};
  for (const [label, request] of Object.entries(cases)) {
    options.log(`\n## scale: ${label}`);
    const specs = [
      ours(dir, copyOf(template1k, dir, `scale-small-${label}`), { name: names.small }),
      ours(dir, copyOf(templateLarge, dir, `scale-large-${label}`), { name: names.large }),
    ];
    results[label] = await withServers(specs, async (servers) => {
      for (const server of servers) await checkAnswer(server, request(server));
      return runRounds(servers, request, options);
    });
  }
  return { results, names, largeRows };
}

/** The markdown table of the scale scenario, large against small. */
export function scaleTable({ results, names }) {
  const rows = [];
  for (const [label, byName] of Object.entries(results)) {
    const small = byName.get(names.small);
    const large = byName.get(names.large);
    rows.push([label, fixed(small.rps), fixed(large.rps), ratio(large.rps, small.rps),
      `${fixed(small.p50, 1)} / ${fixed(large.p50, 1)}`, ratio(large.p50, small.p50),
      `${fixed(small.p99, 1)} / ${fixed(large.p99, 1)}`, ratio(large.p99, small.p99)]);
  }
  return markdownTable(['case', 'req/s small', 'req/s large', 'large/small', 'p50 ms small / large', 'ratio', 'p99 ms small / large', 'ratio'], rows);
}

/** The scale targets: list latency within 1.2×, create throughput at least 0.8×. */
export function scaleTargets({ results, names }) {
  const lines = [];
  const check = (what, value, ok) => lines.push(`- ${ok ? 'met' : 'MISSED'}: ${what} (measured ${value.toFixed(2)}×)`);
  for (const label of ['list, first page', 'list, deep page']) {
    const small = results[label].get(names.small);
    const large = results[label].get(names.large);
    check(`${label}: p50 at large ≤ 1.2× small`, large.p50 / small.p50, large.p50 / small.p50 <= 1.2);
    check(`${label}: p99 at large ≤ 1.2× small`, large.p99 / small.p99, large.p99 / small.p99 <= 1.2);
  }
  const create = results.create;
  const value = create.get(names.large).rps / create.get(names.small).rps;
  check('create: req/s at large ≥ 0.8× small', value, value >= 0.8);
  return lines.join('\n');
}
