import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { answerPrimaryScrapes, ClusterScraper } from './cluster.ts';
import { startMetricsListener } from './listener.ts';
import { createProcessRegistry, createServiceMetrics, type ServiceMetrics } from './service-metrics.ts';

/** How a process makes its metrics available; `url` is null when it has no listener of its own. */
export interface ExposedMetrics {
  url: string | null;
  close(): Promise<void>;
}

const NOTHING: ExposedMetrics = { url: null, close: async () => {} };

// A worker of our own primary (SVC_WORKERS > 1); under another supervisor's cluster (pm2) with one
// worker, each process serves its own listener.
const isOurWorker = (config: Config): boolean => cluster.isWorker && config.workers > 1;

/** The service's metrics when SVC_METRICS_PORT is set, else null (nothing is counted). */
export function serviceMetricsFor(config: Config): ServiceMetrics | null {
  return config.metricsPort === null ? null : createServiceMetrics();
}

/**
 * In one process: serves `metrics` on SVC_METRICS_HOST:PORT; in a worker: answers the primary over IPC.
 * close() stops serving them; the metrics themselves stay open for whoever created them to close.
 */
export async function exposeMetrics(config: Config, metrics: ServiceMetrics | null): Promise<ExposedMetrics> {
  if (metrics === null || config.metricsPort === null) return NOTHING;
  if (isOurWorker(config)) {
    const stop = answerPrimaryScrapes(metrics.registry);
    return { url: null, close: async () => stop() };
  }
  const listener = await startMetricsListener(config.metricsHost, config.metricsPort, metrics.text);
  return { url: listener.url, close: () => listener.close() };
}

/** In the primary of SVC_WORKERS > 1: serves the sum of every worker's metrics and its own process figures. */
export async function exposeClusterMetrics(config: Config): Promise<ExposedMetrics> {
  if (config.metricsPort === null) return NOTHING;
  const own = createProcessRegistry();
  const scraper = new ClusterScraper(own.registry);
  const listener = await startMetricsListener(config.metricsHost, config.metricsPort, () => scraper.text());
  return {
    url: listener.url,
    close: async () => {
      await listener.close();
      own.close();
    },
  };
}
