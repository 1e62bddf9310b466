// The README's tour as data: its steps are read from the page itself, so the test runs what a newcomer
// pastes. A step is a `sh` block of the tour's section; the `text` block right after it is the part of
// the answer the page shows, which the output must contain, line by line and in order.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/** The heading of the README section the tour is read from; it runs until the next `## ` heading. */
export const TOUR_HEADING = '## A five-minute tour';

/** One step: the commands as written, and the answer the page shows for them (none for a start). */
export interface TourStep {
  readonly commands: string;
  readonly answer: string | undefined;
  /** The README line of the `sh` block, for messages. */
  readonly line: number;
}

/** The tour's section of the README, and the line it starts on. */
export function tourSection(readme: string): { text: string; firstLine: number } {
  const start = readme.indexOf(`\n${TOUR_HEADING}\n`);
  if (start < 0) throw new Error(`the README has no "${TOUR_HEADING}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start + 1, end < 0 ? undefined : end + 1);
  return { text, firstLine: readme.slice(0, start + 1).split('\n').length };
}

// A fenced block: its info string, its body, and where it starts.
const FENCE = /^```([\w-]*)\n([\s\S]*?)^```\n/gm;

/** The steps of the tour, in order: every `sh` block, with the `text` block that follows it, if any. */
export function tourSteps(readme: string): TourStep[] {
  const { text, firstLine } = tourSection(readme);
  const blocks = [...text.matchAll(FENCE)].map((m) => ({ info: m[1] as string, body: m[2] as string, at: m.index, end: m.index + m[0].length }));
  const steps: TourStep[] = [];
  blocks.forEach((block, i) => {
    if (block.info !== 'sh') return;
    const next = blocks[i + 1];
    const answered = next !== undefined && next.info === 'text' && text.slice(block.end, next.at).trim() === '';
    const line = firstLine + text.slice(0, block.at).split('\n').length - 1;
    steps.push({ commands: block.body, answer: answered ? next.body : undefined, line });
  });
  return steps;
}

/** The variables of a step that (re)starts the service, `[VAR=value …] npm start`, or null for other steps. */
export function startVariables(commands: string): Record<string, string> | null {
  const match = /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)npm start\s*$/.exec(commands.trim());
  if (match === null) return null;
  const variables: Record<string, string> = {};
  for (const [, name, value] of (match[1] ?? '').matchAll(/([A-Z_][A-Z0-9_]*)=(\S*)/g)) {
    variables[name as string] = (value as string).replace(/^'(.*)'$|^"(.*)"$/, '$1$2');
  }
  return variables;
}

// `…` in a shown answer stands for any text; everything else is literal.
function linePattern(shown: string): RegExp {
  const literal = shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('.*')}$`);
}

/**
 * Why `output` does not show `answer` (each line of it, in order, among the output's lines), or null.
 * A step the page shows no answer for (one that sets a variable) must print nothing.
 */
export function answerMismatch(answer: string | undefined, output: string): string | null {
  if (answer === undefined) return output.trim() === '' ? null : `the page shows no answer, and the step printed:\n${output}`;
  const lines = output.replace(/\r/g, '').split('\n');
  let from = 0;
  for (const shown of answer.replace(/\n$/, '').split('\n')) {
    const pattern = linePattern(shown);
    const at = lines.findIndex((line, i) => i >= from && pattern.test(line));
    if (at < 0) return `no line ${JSON.stringify(shown)} after line ${from} of the output:\n${output}`;
    from = at + 1;
  }
  return null;
}

/** A bash session the steps run in one after another, so a variable set by one step is seen by the next. */
export class TourShell {
  readonly #bash: ChildProcessWithoutNullStreams;
  #stdout = '';
  #stderr = '';
  #steps = 0;
  // The step being run: `check` looks for its end marker, `fail` ends it when bash dies.
  #pending: { check: () => void; fail: (error: Error) => void } | undefined;

  /** Starts bash without profiles in `cwd` with exactly `env`. */
  constructor(cwd: string, env: Record<string, string>) {
    this.#bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env });
    this.#bash.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stdout += chunk;
      this.#pending?.check();
    });
    this.#bash.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.#bash.once('close', () => this.#pending?.fail(new Error(`bash exited; stderr: ${this.#stderr}`)));
  }

  /** What the steps wrote to stderr so far, for messages. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Runs `commands` and resolves with what they wrote to stdout. */
  run(commands: string, timeoutMs: number): Promise<string> {
    const marker = `--- end of tour step ${++this.#steps} ---`;
    const from = this.#stdout.length;
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.#pending = undefined;
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`still running after ${timeoutMs} ms; stderr: ${this.#stderr}`));
      }, timeoutMs);
      this.#pending = {
        check: () => {
          const end = this.#stdout.indexOf(`\n${marker}\n`, from);
          if (end < 0) return;
          settle();
          resolve(this.#stdout.slice(from, end));
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      };
      // The newline first: an answer without one (curl's) must not hide the marker.
      this.#bash.stdin.write(`${commands}\nprintf '\\n%s\\n' '${marker}'\n`);
    });
  }

  close(): void {
    this.#bash.kill('SIGKILL');
  }
}
