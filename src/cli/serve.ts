import { existsSync } from 'node:fs';
import { ConfigError, type Config, loadConfig } from '../config.ts';
import { createLogger } from '../log/logger.ts';
import { SchemaNotReadyError, startServer } from '../server.ts';

type Env = Record<string, string | undefined>;

/** Reads `.env` from the working directory when present; real environment variables win. */
export function loadDotEnv(env: Env): void {
  if (env === process.env && existsSync('.env')) process.loadEnvFile('.env');
}

/** Loads configuration, or prints the one line that names the bad variable and exits 1. */
export function configOrExit(env: Env): Config {
  try {
    loadDotEnv(env);
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/** `node bin/serve.js`: start, log the URL, stop gracefully on SIGTERM/SIGINT. */
export async function main(env: Env): Promise<void> {
  const config = configOrExit(env);
  const logger = createLogger(config.logLevel);
  let running;
  try {
    running = await startServer(config, { logger });
  } catch (error) {
    const message = error instanceof SchemaNotReadyError ? error.message : `cannot start: ${(error as Error).message}`;
    logger.fatal(message);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  logger.info(`listening on ${running.url}`, { url: running.url });
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
