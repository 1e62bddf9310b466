import type { Handler } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { buildOpenApiDocument, type OpenApiOptions } from './document.ts';

/** Registers GET /api/openapi.json; the document is built and serialised once, here. */
export function addOpenApiRoutes(router: Router<Handler>, options: OpenApiOptions): void {
  const json = JSON.stringify(buildOpenApiDocument(options));
  router.add('GET', '/api/openapi.json', 'open', () => ({ status: 200, json }));
}
