/**
 * Calls `write` at most once per `intervalMs`, with how many calls were held back since the last
 * line: a database outage under load then costs a log line every few seconds, not one per request.
 */
export function throttled<T>(intervalMs: number, write: (value: T, heldBack: number) => void, now: () => number = Date.now): (value: T) => void {
  let last = -Infinity;
  let heldBack = 0;
  return (value) => {
    const at = now();
    if (at - last < intervalMs) {
      heldBack++;
      return;
    }
    last = at;
    write(value, heldBack);
    heldBack = 0;
  };
}
