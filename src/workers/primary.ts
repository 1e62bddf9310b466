import cluster, { type Address, type Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import type { Logger } from '../log/logger.ts';
import { type ExposedMetrics, exposeClusterMetrics } from '../metrics/expose.ts';
import { closeDatabase } from '../db/engine.ts';
import { openServiceDatabase } from '../server.ts';
import { RestartPolicy } from './restart-policy.ts';

/** The stop signals bin/serve.js held while the sources loaded (bin/stop-signals.js): `release` hands them over once handlers are installed. */
export interface HeldStopSignals {
  release(): string[];
}

// How long past SVC_SHUTDOWN_TIMEOUT_MS a worker may take to exit before it is killed.
const EXIT_GRACE_MS = 5_000;

function urlOf(address: Address): string {
  const host = address.addressType === 6 ? `[${address.address}]` : (address.address ?? '127.0.0.1');
  return `http://${host}:${address.port}`;
}

/**
 * The primary of SVC_WORKERS > 1: forks the workers that share the port, replaces one that dies
 * (with back-off), gives up loudly on a crash loop, and on SIGTERM/SIGINT forwards SIGTERM to
 * every worker and exits once all have exited: 0 when each stopped cleanly (exit code 0), else 1.
 * It holds no database connection.
 */
class Supervisor {
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #policy: RestartPolicy;
  readonly #live = new Set<Worker>();
  readonly #listened = new WeakSet<Worker>();
  readonly #restarts = new Set<NodeJS.Timeout>();
  readonly #metrics: ExposedMetrics;
  #exitCode: number | null = null;
  #announced = false;

  constructor(config: Config, logger: Logger, metrics: ExposedMetrics) {
    this.#config = config;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#policy = new RestartPolicy(config.workers);
  }

  /** Installs the signal handlers, hears the signals `held` since the process began (a stop then exits at once), then forks the workers. */
  start(held: HeldStopSignals): void {
    cluster.on('online', (worker) => this.#logger.info('worker started', { workerPid: worker.process.pid }));
    cluster.on('listening', (worker, address) => this.#onListening(worker, address));
    cluster.on('exit', (worker, code, signal) => this.#onExit(worker, code, signal));
    const stop = (signal: string): void => {
      this.#logger.info('shutting down', { signal, workers: this.#live.size });
      this.#stopAll(0);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    for (const signal of held.release()) stop(signal);
    for (let i = 0; i < this.#config.workers; i++) this.#fork();
  }

  #fork(): void {
    this.#live.add(cluster.fork());
  }

  // The URL is announced once every worker listens: until then the first one would get every
  // connection (docs/operations.md, Workers); never while stopping.
  #onListening(worker: Worker, address: Address): void {
    this.#listened.add(worker);
    this.#policy.listened();
    this.#logger.info('worker listening', { workerPid: worker.process.pid });
    if (this.#announced || this.#exitCode !== null) return;
    const listening = [...this.#live].filter((live) => this.#listened.has(live)).length;
    if (listening < this.#config.workers) return;
    this.#announced = true;
    const url = urlOf(address);
    this.#logger.info(`listening on ${url}`, { url, workers: this.#config.workers });
  }

  #onExit(worker: Worker, code: number | null, signal: string | null): void {
    this.#live.delete(worker);
    if (this.#exitCode !== null) {
      this.#stoppedWorker(worker, code, signal);
      if (this.#live.size === 0) this.#finish();
      return;
    }
    const decision = this.#policy.died(this.#listened.has(worker));
    if (decision.giveUp) {
      this.#logger.fatal('workers keep dying; giving up', { reason: decision.reason, code, signal });
      this.#stopAll(1);
      return;
    }
    this.#logger.error('worker died; replacing it', { workerPid: worker.process.pid, code, signal, restartInMs: decision.delayMs });
    const timer = setTimeout(() => {
      this.#restarts.delete(timer);
      this.#fork();
    }, decision.delayMs);
    this.#restarts.add(timer);
  }

  // A worker whose own shutdown failed (or that died while stopping) makes the whole stop a failure, so
  // an orchestrator sees it in the primary's exit status. One that never listened had nothing in flight:
  // the stop signal may reach it before it could install its handler (Node itself starting), and
  // dying of it loses nothing.
  #stoppedWorker(worker: Worker, code: number | null, signal: string | null): void {
    const workerPid = worker.process.pid;
    if (code === 0 && signal === null) return;
    if (!this.#listened.has(worker) && (signal === 'SIGTERM' || signal === 'SIGINT')) {
      this.#logger.info('worker stopped before it listened', { workerPid, signal });
      return;
    }
    this.#logger.error('worker did not stop cleanly', { workerPid, code, signal });
    this.#exitCode = 1;
  }

  #stopAll(code: number): void {
    if (this.#exitCode !== null) return;
    this.#exitCode = code;
    this.#restarts.forEach(clearTimeout);
    if (this.#live.size === 0) return this.#finish();
    for (const worker of this.#live) worker.process.kill('SIGTERM');
    setTimeout(() => {
      this.#logger.error('workers did not exit in time; killing them', { workers: [...this.#live].map((w) => w.process.pid) });
      this.#exitCode = 1;
      for (const worker of this.#live) worker.process.kill('SIGKILL');
    }, this.#config.shutdownTimeoutMs + EXIT_GRACE_MS).unref();
  }

  #finish(): void {
    // Scrapes were answered until the last worker exited, so the drain could be watched.
    void this.#metrics.close();
    this.#logger.info('stopped', { exitCode: this.#exitCode });
    this.#logger.flush();
    process.exit(this.#exitCode ?? 0);
  }
}

/**
 * Runs the primary process: checks the schema once (never migrates), starts the metrics listener
 * that sums the workers' figures (SVC_METRICS_PORT), then supervises the workers.
 */
export async function runPrimary(config: Config, logger: Logger, held: HeldStopSignals): Promise<void> {
  // Fails fast (SchemaNotReadyError) instead of letting every worker die on the same database.
  await closeDatabase(await openServiceDatabase(config));
  const metrics = await exposeClusterMetrics(config);
  if (metrics.url !== null) logger.info(`metrics on ${metrics.url}`, { metricsUrl: metrics.url, workers: config.workers });
  new Supervisor(config, logger, metrics).start(held);
}
