import type { Config } from '../config.ts';
import { buildDocsPage } from '../docs-page/page.ts';
import type { Handler, Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';
import { buildOpenApiDocument } from './document.ts';
import { openApiOptionsFor, type ServedRoute } from './options.ts';

// This document and its page: open, whatever the mode, so anyone can learn how to call.
const OWN_ROUTES: readonly ServedRoute[] = [
  { method: 'GET', pattern: '/api/openapi.json', access: 'open' },
  { method: 'GET', pattern: '/api/docs', access: 'open' },
];

/**
 * Registers GET /api/openapi.json and GET /api/docs, last: the document describes every route
 * registered before them, with each one's access, as `config` runs it. It is built and serialised
 * once, here, and the page is made from that very document.
 */
export function addOpenApiRoutes(router: Router<Handler>, config: Pick<Config, 'apiToken' | 'rateLimit' | 'auth' | 'jwt'>, resources: readonly Resource[]): void {
  const document = buildOpenApiDocument(openApiOptionsFor(config, [...router.routes(), ...OWN_ROUTES], resources));
  const json = JSON.stringify(document);
  const page = buildDocsPage(document);
  const docs: Reply = { status: 200, html: page.html, headers: { 'content-security-policy': page.csp } };
  const replies: Readonly<Record<string, Reply>> = { '/api/openapi.json': { status: 200, json }, '/api/docs': docs };
  for (const { method, pattern, access } of OWN_ROUTES) {
    const reply = replies[pattern] as Reply;
    router.add(method, pattern, access, () => reply);
  }
}
