import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MINIMUM_NODE, silenceSqliteWarning, unsupportedNodeMessage } from '../../bin/node-check.js';

test('the minimum is 22.18.0', () => {
  assert.equal(MINIMUM_NODE, '22.18.0');
});

test('a Node just below the minimum gets a message naming the minimum and how to get Node 24', () => {
  const message = unsupportedNodeMessage('22.17.9');
  assert.ok(message !== null);
  assert.match(message, /22\.18\.0 or newer/);
  assert.match(message, /this is Node\.js 22\.17\.9/);
  assert.match(message, /npm install/);
  assert.match(message, /npm start/);
  assert.match(message, /npx node bin\/serve\.js/);
  assert.match(message, /Node 24/);
});

test('old majors get the message, with or without the leading v', () => {
  for (const version of ['v20.20.2', '20.20.2', '18.0.0', '22.0.0', '22.5.1', '21.7.3', '0.10.48']) {
    assert.ok(unsupportedNodeMessage(version) !== null, version);
  }
  assert.match(unsupportedNodeMessage('v20.20.2') ?? '', /this is Node\.js 20\.20\.2\./);
});

test('Node 23 before 23.6 lacks type stripping by default, so it is refused', () => {
  assert.ok(unsupportedNodeMessage('23.0.0') !== null);
  assert.ok(unsupportedNodeMessage('23.5.0') !== null);
  assert.equal(unsupportedNodeMessage('23.6.0'), null);
});

test('supported versions get no message', () => {
  for (const version of ['22.18.0', 'v22.18.0', '22.18.1', '22.20.0', '24.0.0', '24.21.0', '25.1.0', '100.0.0']) {
    assert.equal(unsupportedNodeMessage(version), null, version);
  }
});

test('the Node running these tests is supported', () => {
  assert.equal(unsupportedNodeMessage(process.version), null);
});

test('silenceSqliteWarning drops only the SQLite experimental warning', async () => {
  const seen: string[] = [];
  const listener = (warning: Error): void => {
    seen.push(warning.message);
  };
  process.on('warning', listener);
  silenceSqliteWarning();
  process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
  process.emitWarning('something else is experimental', 'ExperimentalWarning');
  process.emitWarning(new Error('an Error object still gets through'));
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  process.off('warning', listener);
  assert.deepEqual(seen, ['something else is experimental', 'an Error object still gets through']);
});
