import type { Handler } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { ReadinessStatus } from './model.ts';
import { presentReadiness } from './presenter.ts';
import type { ReadinessRepository } from './repository.ts';
import { checkReadiness } from './use-cases.ts';

/** Registers GET /api/ping: 200 when ready, 503 with the same shape when not. */
export function addReadinessRoutes(router: Router<Handler>, repository: ReadinessRepository, expectedVersion: number): void {
  router.add('GET', '/api/ping', 'open', async () => {
    const readiness = await checkReadiness(repository, expectedVersion);
    return { status: readiness.status === ReadinessStatus.ready ? 200 : 503, body: presentReadiness(readiness) };
  });
}
