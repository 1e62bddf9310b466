import { existsSync, readdirSync } from 'node:fs';
import { callbackMetric, type Collector } from './registry.ts';

const FD_DIR = '/proc/self/fd';

// Counted from /proc: reading the folder opens one descriptor of its own, which is not counted.
function openDescriptors(): number | null {
  try {
    return readdirSync(FD_DIR).length - 1;
  } catch {
    return null;
  }
}

/**
 * The usual process figures, read at scrape time, named as prom-client names them. Across workers
 * everything is summed except the start time, which is the earliest (the primary's).
 */
export function processCollectors(): Collector[] {
  // Wall-clock start in seconds (to the millisecond), fixed once: now minus uptime.
  const startTime = Math.round(Date.now() - process.uptime() * 1000) / 1000;
  const collectors: Collector[] = [
    callbackMetric({ type: 'counter', name: 'process_cpu_user_seconds_total', help: 'User CPU time spent, in seconds.', merge: 'sum', read: () => process.cpuUsage().user / 1e6 }),
    callbackMetric({ type: 'counter', name: 'process_cpu_system_seconds_total', help: 'System CPU time spent, in seconds.', merge: 'sum', read: () => process.cpuUsage().system / 1e6 }),
    callbackMetric({
      type: 'counter',
      name: 'process_cpu_seconds_total',
      help: 'User and system CPU time spent, in seconds.',
      merge: 'sum',
      read: () => {
        const usage = process.cpuUsage();
        return (usage.user + usage.system) / 1e6;
      },
    }),
    callbackMetric({ type: 'gauge', name: 'process_resident_memory_bytes', help: 'Resident memory size, in bytes.', merge: 'sum', read: () => process.memoryUsage.rss() }),
    callbackMetric({ type: 'gauge', name: 'process_start_time_seconds', help: 'Start time of the process since the Unix epoch, in seconds.', merge: 'min', read: () => startTime }),
  ];
  // Absent, not zero, where there is no /proc (macOS): a zero would read as a real figure.
  if (existsSync(FD_DIR)) {
    collectors.push(callbackMetric({ type: 'gauge', name: 'process_open_fds', help: 'Open file descriptors.', merge: 'sum', read: openDescriptors }));
  }
  return collectors;
}
