import { type Body, LIST, type VersionSpec } from './model.ts';

/**
 * Lists become objects, so a page can say more than its items: `{ "data": [...], "hasMore": true|false }`
 * (before: the array alone). Keys and webhooks gain `apiVersion`, the version they are pinned to.
 */
export const V2026_11_28: VersionSpec = {
  version: '2026-11-28',
  summary: 'Every JSON list is an object, { "data": [...], "hasMore": ... }; ApiKey and Webhook gain apiVersion.',
  changes: [
    { kind: LIST, downgrade: (page: Body) => page['data'] },
    { kind: 'keys', added: ['apiVersion'] },
    { kind: 'webhooks', added: ['apiVersion'] },
  ],
};
