import cluster from 'node:cluster';
import { isLoopbackHost } from '../http/client-address.ts';
import { createLogger } from '../log/logger.ts';
import { SchemaNotReadyError, startServer } from '../server.ts';
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
  let running;
  try {
    if (cluster.isPrimary && config.workers > 1) return await runPrimary(config, logger);
    running = await startServer(config, { logger });
  } catch (error) {
    const message = error instanceof SchemaNotReadyError ? error.message : `cannot start: ${(error as Error).message}`;
    logger.fatal(message);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  if (cluster.isPrimary) logger.info(`listening on ${running.url}`, { url: running.url });
  if (running.metricsUrl !== null) logger.info(`metrics on ${running.metricsUrl}`, { metricsUrl: running.metricsUrl });
  const stop = (signal: string): void => {
    logger.info('shutting down', { signal });
    running.close().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.fatal('shutdown failed', { err: error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
