import { escapeHtml } from './html.ts';

// The Markdown the OpenAPI descriptions use: `code`, **strong**, paragraphs and pipe tables. Text is
// escaped first, so nothing in a description can become markup of its own.
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

function cells(line: string): string[] {
  return line.replace(/^\s*\|/, '').replace(/\|\s*$/, '').split('|').map((cell) => cell.trim());
}

function table(lines: readonly string[]): string {
  const [head = '', , ...rows] = lines;
  const headRow = cells(head).map((cell) => `<th>${inline(cell)}</th>`).join('');
  const bodyRows = rows.map((row) => `<tr>${cells(row).map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`).join('');
  return `<div class="table"><table><thead><tr>${headRow}</tr></thead><tbody>${bodyRows}</tbody></table></div>`;
}

/** HTML for the Markdown subset of the document's descriptions. */
export function markdown(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => {
      const lines = block.split('\n');
      const isTable = lines.length >= 2 && lines.every((line) => line.trim().startsWith('|')) && /^[\s|:-]+$/.test(lines[1] ?? '');
      return isTable ? table(lines) : `<p>${inline(block)}</p>`;
    })
    .join('\n');
}
