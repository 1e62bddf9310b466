import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { createAt, type Made } from '../support/resource-requests.ts';
import { ALL_RESOURCES, validBody, fieldsIn } from '../support/resources.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// Each resource served is a collection of its own (the test resource included): its own items and
// ids, and its own fields, so another resource's body is refused member by member.

let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

test('any two resources are separate collections with their own ids', async () => {
  const made: Made[] = [];
  for (const [i, resource] of ALL_RESOURCES.entries()) {
    // The resources not made yet are empty, whatever the others hold, and an id of another collection names nothing in them.
    for (const later of ALL_RESOURCES.slice(i)) {
      assert.deepEqual(await (await fetch(`${server.url}${later.path}`)).json(), [], `${later.plural} after ${i} others`);
      for (const { id } of made) await assertProblem(await fetch(`${server.url}${later.path}/${id}`), 404, 'not_found', `${later.path}/${id}`);
    }
    made.push(await createAt(server.url, resource));
  }
  // Each list holds its own item alone, and each collection numbered its first item alike.
  for (const [i, resource] of ALL_RESOURCES.entries()) assert.deepEqual(await (await fetch(`${server.url}${resource.path}`)).json(), [made[i]?.body]);
  assert.deepEqual(new Set(made.map(({ id }) => id)).size, 1, 'every collection counts its own ids');
});

test("a body of another resource is refused: each of its fields this one does not have is unknown_field", async () => {
  let pairs = 0;
  for (const resource of ALL_RESOURCES) {
    for (const other of ALL_RESOURCES.filter((candidate) => candidate !== resource)) {
      const foreign = Object.keys(fieldsIn(other)).filter((field) => !(field in fieldsIn(resource)));
      if (foreign.length === 0) continue;
      pairs++;
      const response = await postJson(`${server.url}${resource.path}`, { ...validBody(other), ...validBody(resource) });
      const problem = await assertProblem(response, 422, 'validation_failed', resource.path);
      const at = `${other.plural}' body on ${resource.plural}`;
      assert.deepEqual(problem['errors'], foreign.map((field) => ({ pointer: `/${field}`, code: 'unknown_field', detail: `${field} is not a known field` })), at);
    }
  }
  assert.ok(pairs >= ALL_RESOURCES.length, `${pairs} pairs of resources with fields of their own`);
});
