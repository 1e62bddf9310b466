import { buildDocsPage } from '../docs-page/page.ts';
import type { Handler, Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { buildOpenApiDocument, type OpenApiOptions } from './document.ts';

/**
 * Registers GET /api/openapi.json and GET /api/docs; the document is built and serialised once, here,
 * and the page is made from that very document.
 */
export function addOpenApiRoutes(router: Router<Handler>, options: OpenApiOptions): void {
  const document = buildOpenApiDocument(options);
  const json = JSON.stringify(document);
  router.add('GET', '/api/openapi.json', 'open', () => ({ status: 200, json }));
  const page = buildDocsPage(document);
  const docs: Reply = { status: 200, html: page.html, headers: { 'content-security-policy': page.csp } };
  router.add('GET', '/api/docs', 'open', () => docs);
}
