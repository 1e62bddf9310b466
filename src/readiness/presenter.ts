import type { Readiness } from './model.ts';

/** The Readiness representation of docs/api.md. */
export function presentReadiness(readiness: Readiness): object {
  return { status: readiness.status, checks: { database: readiness.checks.database, schema: readiness.checks.schema } };
}
