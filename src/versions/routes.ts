import type { Handler } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { ApiVersions } from './api-versions.ts';

/** The path that lists the versions served. */
export const VERSIONS_PATH = '/api/versions';

/**
 * Registers GET /api/versions (docs/versions.md, Finding out): open like readiness, the same in every
 * version: the versions served, newest first, each with what it changed and its sunset, and the default.
 */
export function addVersionRoutes(router: Router<Handler>, versions: ApiVersions, defaultVersion: string): void {
  router.add('GET', VERSIONS_PATH, 'open', () => ({
    status: 200,
    body: {
      versions: versions.servedAt().map((view) => ({ version: view.id, summary: view.summary, sunset: view.sunsetAt === null ? null : new Date(view.sunsetAt).toISOString() })),
      default: defaultVersion,
    },
  }));
}
