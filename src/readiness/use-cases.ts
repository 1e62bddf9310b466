import { type Readiness, ReadinessStatus } from './model.ts';
import type { ReadinessRepository } from './repository.ts';

/** Checks that the database answers and has the schema this build expects. */
export async function checkReadiness(repository: ReadinessRepository, expectedVersion: number): Promise<Readiness> {
  let version: number;
  try {
    version = await repository.schemaVersion();
  } catch {
    const down = ReadinessStatus.unavailable;
    return { status: down, checks: { database: down, schema: down } };
  }
  const schema = version === expectedVersion ? ReadinessStatus.ready : ReadinessStatus.unavailable;
  return { status: schema, checks: { database: ReadinessStatus.ready, schema } };
}
