// Plain JavaScript, run by bin/serve.js before the TypeScript sources load.

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'];

/**
 * Holds SIGTERM and SIGINT from now on, while the sources load (a few hundred milliseconds): a signal
 * that comes meanwhile (a primary stopping a worker it has just forked, an orchestrator stopping a
 * slow start) is kept instead of killing the process, which then stops as gracefully as it would a
 * moment later. `release()`, called once the process's own handlers are installed, stops holding and
 * returns the signals that came, oldest first.
 */
export function holdStopSignals() {
  const held = [];
  const hold = (signal) => held.push(signal);
  for (const signal of STOP_SIGNALS) process.on(signal, hold);
  return {
    release() {
      for (const signal of STOP_SIGNALS) process.off(signal, hold);
      return held.splice(0);
    },
  };
}
