// Where things are: the service's checkout and the benchmark folder.
import { fileURLToPath } from 'node:url';

export const BENCH = fileURLToPath(new URL('..', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
