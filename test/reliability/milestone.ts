import { setTimeout as sleep } from 'node:timers/promises';

/** Something that happens once during a crash round (the first acknowledged write): `reach` it, await `reached`. */
export interface Milestone {
  reach(): void;
  readonly reached: Promise<void>;
}

export function milestone(): Milestone {
  let reach = (): void => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reach: () => reach(), reached };
}

/**
 * Waits for `milestone` while `writers` run, so a crash test kills the server only once it has
 * acknowledged what the test needs (on a loaded machine the first answer may take a second). Rejects,
 * naming `what`, when every writer stopped first (the server died, or a writer failed: its error) or
 * after `timeoutMs`.
 */
export async function whileWriting(milestone: Milestone, writers: readonly Promise<void>[], what: string, timeoutMs = 30_000): Promise<void> {
  const timer = new AbortController();
  const stopped = Promise.all(writers).then(() => Promise.reject(new Error(`every writer stopped before ${what}`)));
  const late = sleep(timeoutMs, undefined, { signal: timer.signal }).then(() => Promise.reject(new Error(`no ${what} within ${timeoutMs} ms`)));
  try {
    await Promise.race([milestone.reached, stopped, late]);
  } finally {
    timer.abort();
    late.catch(() => {});
    stopped.catch(() => {});
  }
}
