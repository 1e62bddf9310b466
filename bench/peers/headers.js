// The security headers every server in the benchmark sends (README: Headers), flattened for writeHead.
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

export const HEADERS = Object.entries(SECURITY_HEADERS).flat();

/** The media type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';
