import { randomInt } from 'node:crypto';

/** A small deterministic random source, so a failing run can be replayed from its seed. */
export interface Random {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** mulberry32: 32 bits of state, good enough spread for test data, identical on every platform. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max: number): number => Math.floor(next() * max);
  return {
    seed,
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)] as T;
    },
    chance: (probability) => next() < probability,
  };
}

/** A fresh seed for a run that should explore, printed by the caller so it can be replayed. */
export function randomSeed(): number {
  return randomInt(1, 2 ** 31 - 1);
}

/** An integer from the environment (e.g. FUZZ_SEED), or `fallback` when unset. */
export function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

/** True when the long versions of the reliability checks were asked for. */
export function fullRun(): boolean {
  return process.env['RELIABILITY_FULL'] === '1';
}
