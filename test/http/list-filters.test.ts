import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ScalarField } from '../../src/resources/fields.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem } from '../support/assertions.ts';
import { createAt } from '../support/resource-requests.ts';
import { ALL_RESOURCES, validBody } from '../support/resources.ts';
import { patchJson, startTestServer, type TestServer } from '../support/server.ts';

// A list filtered by an integer enum of its resource (docs/api.md, Lists: `?status=2`): every filter of
// every resource served (products' status, the test resource's finish), derived from the descriptions.
// Keyset pages that carry the filter, a change leaving the filtered list during a walk, refused values,
// cursors bound to their filter, and a parameter that is no filter of a resource ignored by it.

let server: TestServer;
const SEEDED = 30;
// The ids of each resource's items, newest first, by filter field and value.
const byValue = new Map<Resource, Map<string, Map<number, number[]>>>();

const choicesOf = (resource: Resource, field: string): readonly number[] => (resource.fields[field] as ScalarField<number>).choices as readonly number[];
const idsWith = (resource: Resource, field: string, value: number): number[] => byValue.get(resource)?.get(field)?.get(value) ?? [];

before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
  for (const resource of ALL_RESOURCES) {
    const fields = new Map(resource.filters.map((field) => [field, new Map(choicesOf(resource, field).map((value) => [value, [] as number[]]))]));
    // The n-th valid body takes each enum's values in turn, so every value has items.
    for (let n = 0; n < SEEDED; n++) {
      const made = await createAt(server.url, resource, n);
      for (const [field, values] of fields) values.get(validBody(resource, n)[field] as number)?.unshift(made.id);
    }
    byValue.set(resource, fields);
  }
});
after(() => server.stop());

for (const resource of ALL_RESOURCES) {
  const { path, plural } = resource;
  for (const field of resource.filters) {
    const choices = choicesOf(resource, field);
    const LINK = new RegExp(`^<(${path}\\?limit=(\\d+)&${field}=(\\d+)&cursor=([A-Za-z0-9_-]+))>; rel="next"$`);

    const walk = async (first: string): Promise<{ ids: number[]; links: string[] }> => {
      const ids: number[] = [];
      const links: string[] = [];
      let next: string | undefined = first;
      while (next !== undefined) {
        const response = await fetch(`${server.url}${next}`);
        assert.equal(response.status, 200, next);
        ids.push(...((await response.json()) as { id: number }[]).map((item) => item.id));
        const link = response.headers.get('link');
        if (link !== null) links.push(link);
        next = link === null ? undefined : LINK.exec(link)?.[1];
        if (link !== null) assert.ok(next !== undefined, `Link ${link} carries the filter`);
      }
      return { ids, links };
    };

    test(`${plural}: ?${field}= each of ${choices.join(', ')} lists only that value, newest first, in keyset pages that carry the filter`, async () => {
      for (const value of choices) {
        const { ids, links } = await walk(`${path}?${field}=${value}&limit=4`);
        assert.deepEqual(ids, idsWith(resource, field, value));
        assert.ok(ids.length > 0 && links.length >= 2, `${field}=${value}: ${ids.length} items, ${links.length} links`);
        for (const link of links) assert.equal(LINK.exec(link)?.[3], String(value));
      }
    });

    test(`${plural}: an item whose ${field} changes during a walk of ?${field}= leaves the remaining pages of it`, async () => {
      const [value, other] = choices as [number, number];
      const first = await fetch(`${server.url}${path}?${field}=${value}&limit=3`);
      const seen = ((await first.json()) as { id: number }[]).map((item) => item.id);
      const target = idsWith(resource, field, value)[6] as number;
      assert.equal((await patchJson(`${server.url}${path}/${target}`, { [field]: other })).status, 200);
      const rest = await walk(LINK.exec(first.headers.get('link') ?? '')?.[1] ?? '');
      assert.deepEqual([...seen, ...rest.ids], idsWith(resource, field, value).filter((id) => id !== target));
      assert.equal((await patchJson(`${server.url}${path}/${target}`, { [field]: value })).status, 200);
    });

    test(`${plural}: a bad ${field} is 400 invalid_query naming the parameter`, async () => {
      const [lowest, highest] = [Math.min(...choices), Math.max(...choices)];
      const label = Object.keys((resource.fields[field] as ScalarField<number>).named ?? {})[0] ?? 'label';
      const bad = [String(highest + 1), String(lowest - 1), label, '', `${lowest}.0`, `0${lowest}`, '-1', choices.join(','), `+${lowest}`, `%3${lowest}%3${lowest}`];
      for (const value of bad) {
        const problem = await assertProblem(await fetch(`${server.url}${path}?${field}=${value}`), 400, 'invalid_query', path);
        assert.deepEqual(problem['errors'], [{ parameter: field, code: 'invalid_enum', detail: `${field} must be one of ${choices.join(', ')}` }], value);
      }
    });

    test(`${plural}: a cursor issued under one ${field} is 400 invalid_query under another or none, and the other way round`, async () => {
      const cursorOf = async (query: string): Promise<string> => {
        const response = await fetch(`${server.url}${path}?${query}`);
        await response.arrayBuffer();
        return /cursor=([A-Za-z0-9_-]+)/.exec(response.headers.get('link') ?? '')?.[1] ?? '';
      };
      const [one, two] = [choices.at(-1), choices[0]] as [number, number];
      const last = await cursorOf(`${field}=${one}&limit=2`);
      const firstValue = await cursorOf(`${field}=${two}&limit=2`);
      const unfiltered = await cursorOf('limit=2');
      const refused: [string, string][] = [
        [last, `${field}=${two}`], [last, ''], [firstValue, `${field}=${one}`], [firstValue, ''], [unfiltered, `${field}=${two}`], [unfiltered, `${field}=${one}`],
      ];
      for (const [cursor, filter] of refused) {
        const response = await fetch(`${server.url}${path}?limit=2&cursor=${cursor}${filter === '' ? '' : `&${filter}`}`);
        const problem = await assertProblem(response, 400, 'invalid_query', path);
        assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'cursor');
      }
      // Under its own filter the cursor goes on where it stopped: the rest of the items with that value.
      const rest = await fetch(`${server.url}${path}?cursor=${last}&${field}=${one}`);
      assert.equal(rest.status, 200);
      assert.equal(rest.headers.get('link'), null);
      const items = (await rest.json()) as Record<string, unknown>[];
      assert.deepEqual(items.map((item) => item['id']), idsWith(resource, field, one).slice(2));
      assert.deepEqual(new Set(items.map((item) => item[field])), new Set([one]));
    });
  }

  // The filters of the other resources that are not this one's: a parameter like any unknown one.
  const foreign = [...new Set(ALL_RESOURCES.flatMap((other) => other.filters))].filter((field) => !resource.filters.includes(field));
  for (const field of foreign) {
    test(`${plural}: ${field} is not a filter of ${plural}, so ?${field}= is ignored, as any unknown parameter`, async () => {
      const unfiltered = await (await fetch(`${server.url}${path}?limit=200`)).json();
      assert.equal((unfiltered as unknown[]).length, SEEDED);
      const ignored = await fetch(`${server.url}${path}?limit=200&${field}=9`);
      assert.equal(ignored.status, 200);
      assert.deepEqual(await ignored.json(), unfiltered);
    });
  }
}
