// Prints the lines of src/ by part and folder, as the Markdown table of docs/architecture.md.
// Usage: npx node test/architecture/sizes.ts
import { fileURLToPath } from 'node:url';
import { lineCounts, partOf, sourceFiles } from './import-graph.ts';
import { type Part, PARTS, partOfFile } from './rules.ts';

/** Lines of each top-level folder or file of src/, grouped by part, in the order of PARTS. */
export function sizesByPart(root: string): { part: Part | 'unplaced'; place: string; lines: number }[] {
  const lines = lineCounts(root, sourceFiles(root));
  const byPlace = new Map<string, number>();
  for (const [file, count] of lines) byPlace.set(partOf(file), (byPlace.get(partOf(file)) ?? 0) + count);
  const order = Object.values(PARTS).flat() as string[];
  return [...byPlace]
    .map(([place, count]) => ({ part: partOfFile(place.endsWith('/') ? `${place}x.ts` : place) ?? ('unplaced' as const), place, lines: count }))
    .sort((a, b) => order.indexOf(a.place) - order.indexOf(b.place));
}

function percent(part: number, whole: number): string {
  return `${Math.round((100 * part) / whole)}%`;
}

/** The table: one row per folder, then one per part, each with its share of all of src/. */
export function sizesTable(root: string): string {
  const rows = sizesByPart(root);
  const total = rows.reduce((sum, row) => sum + row.lines, 0);
  const out = ['| part | folder or file | lines | share of src/ |', '|---|---|---:|---:|'];
  for (const row of rows) out.push(`| ${row.part} | \`${row.place}\` | ${row.lines} | ${percent(row.lines, total)} |`);
  const parts = [...new Set(rows.map((row) => row.part))];
  for (const part of parts) {
    const lines = rows.filter((row) => row.part === part).reduce((sum, row) => sum + row.lines, 0);
    out.push(`| **${part}** | | **${lines}** | **${percent(lines, total)}** |`);
  }
  out.push(`| **all of src/** | | **${total}** | |`);
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${sizesTable(fileURLToPath(new URL('../../', import.meta.url)))}\n`);
}
