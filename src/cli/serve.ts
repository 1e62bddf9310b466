import cluster from 'node:cluster';
import { isLoopbackHost } from '../http/client-address.ts';
import { createLogger, LEVEL_NUMBERS, type Logger } from '../log/logger.ts';
import { type RunningServer, SchemaNotReadyError, startServer } from '../server.ts';
import { type HeldStopSignals, runPrimary } from '../workers/primary.ts';
import { configOrExit } from './config-or-exit.ts';

type Env = Record<string, string | undefined>;

const NONE_HELD: HeldStopSignals = { release: () => [] };

/** `node bin/serve.js`: start, log the URL, stop gracefully on SIGTERM/SIGINT (one held since the process began included). */
export async function main(env: Env, held: HeldStopSignals = NONE_HELD): Promise<void> {
  // One turn of the event loop: a signal the process received while its sources loaded (a blocking
  // while) is only heard in the loop, and is then held, so that nothing is started for it.
  await new Promise((resolve) => setImmediate(resolve));
  const config = configOrExit(env);
  const logger = createLogger(config.logLevel);
  // Workers are forked by a primary that already warned and will log the URL once for all of them.
  // With SVC_AUTH on every request needs a credential, so only the open mode is worth the warning.
  if (cluster.isPrimary && config.auth === 'off' && config.apiToken === '' && !isLoopbackHost(config.host)) {
    logger.warn('listening beyond loopback without SVC_AUTH or SVC_API_TOKEN: anyone who can reach the port can create resources', { host: config.host });
  }
  if (cluster.isPrimary && config.workers > 1) {
    try {
      return await runPrimary(config, logger, held);
    } catch (error) {
      return exitOnStartFailure(logger, error);
    }
  }
  // Signals are ours before start-up begins: a SIGTERM while the server is still starting (a worker
  // already counted as listening by its primary, an orchestrator stopping a slow start) waits for the
  // start to finish and then stops it gracefully, instead of killing the process with no 'stopped'.
  // One that came even before (while the sources loaded) means there is nothing to start.
  const stopping = new StopOnSignal(logger);
  for (const signal of held.release()) stopping.heard(signal);
  if (stopping.requested) return stopping.beforeStart();
  logger.write(LEVEL_NUMBERS.debug, 'starting');
  let running: RunningServer;
  try {
    running = await startServer(config, { logger });
  } catch (error) {
    return exitOnStartFailure(logger, error);
  }
  if (!stopping.requested) {
    if (cluster.isPrimary) logger.info(`listening on ${running.url}`, { url: running.url });
    if (running.metricsUrl !== null) logger.info(`metrics on ${running.metricsUrl}`, { metricsUrl: running.metricsUrl });
  }
  stopping.started(running);
}

function exitOnStartFailure(logger: Logger, error: unknown): never {
  const message = error instanceof SchemaNotReadyError ? error.message : `cannot start: ${(error as Error).message}`;
  logger.fatal(message);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The first SIGTERM/SIGINT closes the server, at once or as soon as it has started. */
class StopOnSignal {
  readonly #logger: Logger;
  #running: RunningServer | undefined;
  requested = false;

  constructor(logger: Logger) {
    this.#logger = logger;
    process.once('SIGTERM', this.heard);
    process.once('SIGINT', this.heard);
  }

  readonly heard = (signal: string): void => {
    this.requested = true;
    this.#logger.info('shutting down', { signal });
    if (this.#running !== undefined) this.#close(this.#running);
  };

  /** Stopped before anything was opened: nothing to close. */
  beforeStart(): void {
    this.#stopped();
  }

  started(running: RunningServer): void {
    this.#running = running;
    if (this.requested) this.#close(running);
  }

  #close(running: RunningServer): void {
    running.close().then(
      () => this.#stopped(),
      (error: unknown) => {
        this.#logger.fatal('shutdown failed', { err: error });
        process.exit(1);
      },
    );
  }

  #stopped(): void {
    this.#logger.info('stopped');
    this.#logger.flush();
    process.exit(0);
  }
}
