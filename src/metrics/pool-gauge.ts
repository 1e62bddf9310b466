import { callbackMetric } from './registry.ts';

/** A pool's connections as PostgreSQL storage reports them. */
export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

/** `db_pool_connections{state}`: PostgreSQL pool connections by state (idle, busy) and callers waiting, read at scrape time. */
export function poolGauge(read: () => PoolState): ReturnType<typeof callbackMetric> {
  return callbackMetric({
    type: 'gauge',
    name: 'db_pool_connections',
    help: 'PostgreSQL pool connections by state (idle, busy), and callers waiting for one (waiting).',
    merge: 'sum',
    read: () => {
      const { total, idle, waiting } = read();
      return [
        { labels: { state: 'idle' }, value: idle },
        { labels: { state: 'busy' }, value: total - idle },
        { labels: { state: 'waiting' }, value: waiting },
      ];
    },
  });
}
