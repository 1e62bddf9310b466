import { existsSync } from 'node:fs';
import { ConfigError, type Config, loadConfig } from '../config.ts';

type Env = Record<string, string | undefined>;

/** Reads `.env` from the working directory when present; real environment variables win. */
export function loadDotEnv(env: Env): void {
  // process.loadEnvFile never overwrites a variable that is already set.
  if (env === process.env && existsSync('.env')) process.loadEnvFile('.env');
}

function exitWith(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Loads configuration, or prints the one line that names the bad variable and exits 1. */
export function configOrExit(env: Env): Config {
  try {
    loadDotEnv(env);
  } catch (error) {
    // An unreadable .env (a folder, no permission) is a start-up error, not a stack trace.
    exitWith(`cannot read .env: ${(error as Error).message}`);
  }
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitWith(error.message);
  }
}
