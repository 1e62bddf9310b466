import cluster from 'node:cluster';
import { isLoopbackHost } from '../http/client-address.ts';
import { createLogger, LEVEL_NUMBERS, type Logger } from '../log/logger.ts';
import { type RunningServer, SchemaNotReadyError, startServer } from '../server.ts';
import { runPrimary } from '../workers/primary.ts';
import { configOrExit } from './config-or-exit.ts';

type Env = Record<string, string | undefined>;

/** `node bin/serve.js`: start, log the URL, stop gracefully on SIGTERM/SIGINT. */
export async function main(env: Env): Promise<void> {
  const config = configOrExit(env);
  const logger = createLogger(config.logLevel);
  // Workers are forked by a primary that already warned and will log the URL once for all of them.
  // With SVC_AUTH on every request needs a credential, so only the open mode is worth the warning.
  if (cluster.isPrimary && config.auth === 'off' && config.apiToken === '' && !isLoopbackHost(config.host)) {
    logger.warn('listening beyond loopback without SVC_AUTH or SVC_API_TOKEN: anyone who can reach the port can create resources', { host: config.host });
  }
  if (cluster.isPrimary && config.workers > 1) {
    try {
      return await runPrimary(config, logger);
    } catch (error) {
      return exitOnStartFailure(logger, error);
    }
  }
  // Signals are ours before start-up begins: a SIGTERM while the server is still starting (a worker
  // already counted as listening by its primary, an orchestrator stopping a slow start) waits for the
  // start to finish and then stops it gracefully, instead of killing the process with no 'stopped'.
  const stopping = new StopOnSignal(logger);
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
    const stop = (signal: string): void => {
      this.requested = true;
      logger.info('shutting down', { signal });
      if (this.#running !== undefined) this.#close(this.#running);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }

  started(running: RunningServer): void {
    this.#running = running;
    if (this.requested) this.#close(running);
  }

  #close(running: RunningServer): void {
    running.close().then(
      () => {
        this.#logger.info('stopped');
        this.#logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        this.#logger.fatal('shutdown failed', { err: error });
        process.exit(1);
      },
    );
  }
}
