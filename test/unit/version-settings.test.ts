import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { VERSIONS } from '../../src/registry.ts';
import { CURRENCIES } from '../../src/shared/currencies.ts';

// SVC_API_VERSION, SVC_API_SUNSET and SVC_DEFAULT_CURRENCY (docs/configuration.md): parsed at start,
// each bad value one line naming the variable, the value and what is allowed.

const IDS = VERSIONS.map((spec) => spec.version);
const [FIRST = '', SECOND = ''] = IDS;
const NEWEST = IDS.at(-1) ?? '';
const refused = (env: Record<string, string>, name: string): void => {
  assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && error.message.startsWith(`invalid ${name}=`), JSON.stringify(env));
};

test('the defaults: the first version, no sunsets, EUR', () => {
  const { versions } = loadConfig({});
  assert.deepEqual([versions.defaultVersion, versions.sunsets.size, versions.defaultCurrency], [FIRST, 0, 'EUR']);
});

test('SVC_API_VERSION names a version served; anything else stops the process', () => {
  for (const id of IDS) assert.equal(loadConfig({ SVC_API_VERSION: id }).versions.defaultVersion, id);
  for (const bad of ['2026-11-20', 'latest', '2026-11-21,2026-11-28', '21-11-2026']) refused({ SVC_API_VERSION: bad }, 'SVC_API_VERSION');
});

test('SVC_API_SUNSET: versions but the newest, each once, with an RFC 3339 moment; a default past its sunset stops the process', () => {
  const at = '2030-06-30T00:00:00Z';
  const config = loadConfig({ SVC_API_SUNSET: `${FIRST}=${at}, ${SECOND}=2031-01-01T00:00:00.000+02:00` });
  assert.equal(config.versions.sunsets.get(FIRST), Date.parse(at));
  assert.equal(config.versions.sunsets.get(SECOND), Date.parse('2031-01-01T00:00:00.000+02:00'));
  for (const bad of [`${NEWEST}=${at}`, `${FIRST}=tomorrow`, `${FIRST}=${at},${FIRST}=${at}`, `2020-01-01=${at}`, `${FIRST}`, `${FIRST}=${at}=x`, `${FIRST}=2030-06-30`]) {
    refused({ SVC_API_SUNSET: bad }, 'SVC_API_SUNSET');
  }
  // A sunset already passed is fine for a version nobody defaults to, and refused for the default.
  assert.equal(loadConfig({ SVC_API_SUNSET: `${FIRST}=2020-01-01T00:00:00Z`, SVC_API_VERSION: NEWEST }).versions.defaultVersion, NEWEST);
  refused({ SVC_API_SUNSET: `${FIRST}=2020-01-01T00:00:00Z` }, 'SVC_API_VERSION');
});

test('SVC_DEFAULT_CURRENCY is a currency in force: the X-codes, funds, withdrawn codes and other spellings are refused', () => {
  assert.equal(loadConfig({ SVC_DEFAULT_CURRENCY: 'JPY' }).versions.defaultCurrency, 'JPY');
  for (const bad of ['XAU', 'XDR', 'XTS', 'XXX', 'HRK', 'BGN', 'CHE', 'eur', 'EURO', '€']) refused({ SVC_DEFAULT_CURRENCY: bad }, 'SVC_DEFAULT_CURRENCY');
  assert.ok(CURRENCIES.includes('XOF') && CURRENCIES.includes('USD') && CURRENCIES.length > 150);
});
