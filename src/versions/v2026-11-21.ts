import type { VersionSpec } from './model.ts';

/** The first version: the API as it was before versions existed, still served unchanged. */
export const V2026_11_21: VersionSpec = {
  version: '2026-11-21',
  summary: 'The first version: the API as it was before versions existed.',
};
