import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// The field rules of docs/api.md, POST /api/products end to end: what a client sends as JSON text, what it gets back.
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

async function errorsFor(path: string, json: string): Promise<string[]> {
  const response = await postJson(`${server.url}${path}`, json);
  const body = (await response.json()) as { errors?: { pointer: string; code: string }[] };
  if (response.status === 201) return [];
  assert.equal(response.status, 422, json);
  return (body.errors ?? []).map((e) => `${e.pointer} ${e.code}`);
}

const name = (value: string): string => JSON.stringify(value);
const EMOJI = '\u{1F600}';

const NAME_CASES: [string, string[]][] = [
  [name('a'), []],
  [name('a'.repeat(200)), []],
  [name(EMOJI.repeat(200)), []],
  [name('a'.repeat(201)), ['/name too_long']],
  [name(EMOJI.repeat(201)), ['/name too_long']],
  [name('   '), ['/name too_short']],
  [name(''), ['/name too_short']],
  ['"a\\u0000b"', ['/name invalid_characters']],
  ['"a\\u001fb"', ['/name invalid_characters']],
  ['"a\\u007fb"', ['/name invalid_characters']],
  ['"a\\u009fb"', ['/name invalid_characters']],
  ['"a\\ud800b"', ['/name invalid_characters']],
  ['"a\\u00a0b"', []],
  ['null', ['/name type']],
  ['42', ['/name type']],
  ['["a"]', ['/name type']],
];

for (const [path, rest] of [['/api/products', ',"priceInCents":1'], ['/api/workspaces', '']] as const) {
  test(`${path}: every name rule`, async () => {
    for (const [value, expected] of NAME_CASES) {
      assert.deepEqual(await errorsFor(path, `{"name":${value}${rest}}`), expected, value.slice(0, 40));
    }
    assert.deepEqual(await errorsFor(path, `{${rest.slice(1)}}`), ['/name required']);
  });
}

test('the trimmed name is what is stored and read back', async () => {
  const created = await postJson(`${server.url}/api/products`, { name: `  ${'b'.repeat(200)}\n`, priceInCents: 1 });
  assert.equal(created.status, 201);
  const read = (await (await fetch(`${server.url}${created.headers.get('location')}`)).json()) as { name: string };
  assert.equal(read.name, 'b'.repeat(200));
});

test('every priceInCents rule', async () => {
  const cases: [string, string[]][] = [
    ['0', []], ['2147483647', []], ['-1', ['/priceInCents too_small']], ['2147483648', ['/priceInCents too_large']],
    ['1.5', ['/priceInCents not_integer']], ['"100"', ['/priceInCents type']], ['null', ['/priceInCents type']],
    ['true', ['/priceInCents type']], ['1e400', ['/priceInCents too_large']],
  ];
  for (const [value, expected] of cases) {
    assert.deepEqual(await errorsFor('/api/products', `{"name":"x","priceInCents":${value}}`), expected, value);
  }
  assert.deepEqual(await errorsFor('/api/products', '{"name":"x"}'), ['/priceInCents required']);
});

test('every status rule', async () => {
  const cases: [string, string[]][] = [
    ['1', []], ['2', []], ['3', ['/status invalid_enum']], ['0', ['/status invalid_enum']],
    ['"1"', ['/status type']], ['null', ['/status type']],
  ];
  for (const [value, expected] of cases) {
    assert.deepEqual(await errorsFor('/api/products', `{"name":"x","priceInCents":1,"status":${value}}`), expected, value);
  }
});

test('a typo is reported, not dropped, alongside every other error', async () => {
  assert.deepEqual(await errorsFor('/api/products', '{"name":"","price_in_cents":100,"status":"2"}'), [
    '/name too_short',
    '/priceInCents required',
    '/status type',
    '/price_in_cents unknown_field',
  ]);
});
