import type { Config } from '../config.ts';
import { buildDocsPage, type PageVersions } from '../docs-page/page.ts';
import type { Handler, Reply } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { Resource } from '../resources/resource.ts';
import type { ApiVersions, VersionView } from '../versions/api-versions.ts';
import { buildOpenApiDocument } from './document.ts';
import { type OpenApiOptions, openApiOptionsFor, type ServedRoute } from './options.ts';

// This document and its page: open, whatever the mode, so anyone can learn how to call.
const OWN_ROUTES: readonly ServedRoute[] = [
  { method: 'GET', pattern: '/api/openapi.json', access: 'open' },
  { method: 'GET', pattern: '/api/docs', access: 'open' },
];

/** The document of one version, serialised, and the page made from that very document. */
interface Replies {
  readonly document: Reply;
  readonly page: Reply;
}

/** The versions the page of the document made with `options` lists (every one served, newest first), and the one it shows. */
export function pageVersions(options: OpenApiOptions): PageVersions {
  const { shown, served } = options.versions;
  const listed = served.map((view) => ({ id: view.id, summary: view.summary, sunset: view.sunsetAt === null ? null : new Date(view.sunsetAt).toISOString() }));
  return { shown: shown.id, served: listed };
}

function repliesOf(options: OpenApiOptions): Replies {
  const document = buildOpenApiDocument(options);
  const page = buildDocsPage(document, pageVersions(options));
  return { document: { status: 200, json: JSON.stringify(document) }, page: { status: 200, html: page.html, headers: { 'content-security-policy': page.csp } } };
}

/**
 * Registers GET /api/openapi.json and GET /api/docs, last: the document describes every route
 * registered before them, with each one's access, as `config` runs it, in the request's API version.
 * Each version's document is built and serialised once, when first asked for, and its page is made
 * from that very document; all of them are made again once the versions served change (a sunset passed).
 */
export function addOpenApiRoutes(router: Router<Handler>, config: Pick<Config, 'apiToken' | 'rateLimit' | 'auth' | 'jwt' | 'versions'>, resources: readonly Resource[], versions: ApiVersions): void {
  const routes = [...router.routes(), ...OWN_ROUTES];
  const made = new Map<VersionView, Replies>();
  let servedWhenMade = '';
  const repliesIn = (version: VersionView): Replies => {
    const options = openApiOptionsFor(config, routes, resources, versions, version);
    const served = options.versions.served.map((view) => view.id).join(',');
    if (served !== servedWhenMade) {
      made.clear();
      servedWhenMade = served;
    }
    let replies = made.get(version);
    if (replies === undefined) {
      replies = repliesOf(options);
      made.set(version, replies);
    }
    return replies;
  };
  router.add('GET', '/api/openapi.json', 'open', (ctx) => repliesIn(ctx.version).document);
  router.add('GET', '/api/docs', 'open', (ctx) => repliesIn(ctx.version).page);
}
