// Changes of a resource that its own rules let through, or that one of them refuses, found in the
// series of valid bodies (test/support/resources.ts) by asking the rules themselves: a shared test
// derives them from the description, so a resource with rules of its own needs no case written for it.
import type { ChangeRule, Resource, Stored } from '../../src/resources/resource.ts';
import type { VersionView } from '../../src/versions/api-versions.ts';
import { mergePatch } from './resource-places.ts';
import { changingPatch, DEFAULT_VERSION, toNewest, validBody } from './resources.ts';

/** A create body, and a merge patch of it that changes every field. */
export interface ChangeSample {
  readonly n: number;
  readonly body: Record<string, unknown>;
  readonly patch: Record<string, unknown>;
}

// How far along the series to look: every enum value meets every other within a few steps.
const SEARCHED = 64;

// The rules of `resource` that refuse the change of validBody(n) by `patch` (changingPatch(n) unless
// given), both of `version`, judged as the rules judge them: on the newest shapes they become.
function refusing(resource: Resource, n: number, version: VersionView, patch = changingPatch(resource, n, version)): ChangeRule<Stored>[] {
  const times = { id: 1, version: 1, createdAt: '2026-11-22T09:30:00.000Z', updatedAt: '2026-11-22T09:30:00.000Z' };
  const current = { ...times, ...toNewest(resource, validBody(resource, n, version), version) } as Stored;
  const next = mergePatch(current, version.upgrade(resource.plural, patch, { mode: 'patch', settings: { defaultCurrency: 'EUR' } })) as Stored;
  return resource.rules.filter((rule) => rule.breaks(current, next));
}

function sample(resource: Resource, wanted: (refused: readonly ChangeRule<Stored>[]) => boolean, what: string, from: number, version: VersionView): ChangeSample {
  for (let n = from; n < from + SEARCHED; n++) {
    if (wanted(refusing(resource, n, version))) return { n, body: validBody(resource, n, version), patch: changingPatch(resource, n, version) };
  }
  throw new Error(`${resource.plural}: no change along validBody's series ${what}; make the series reach one`);
}

/** A change of `resource` that no rule of its own refuses, at or after the n-th body of the series, in the default version (or `version`). */
export function allowedChange(resource: Resource, from = 0, version: VersionView = DEFAULT_VERSION): ChangeSample {
  return sample(resource, (refused) => refused.length === 0, 'is allowed by every rule', from, version);
}

/** For each rule of `resource`, a change that this rule alone refuses, in the default version (or `version`). */
export function refusedChanges(resource: Resource, version: VersionView = DEFAULT_VERSION): { rule: ChangeRule<Stored>; change: ChangeSample }[] {
  return resource.rules.map((rule) => ({ rule, change: sample(resource, (refused) => refused.length === 1 && refused[0] === rule, `is refused by ${rule.refusal.code} alone`, 0, version) }));
}

/** A create body of `resource` from which every one of `patches` is a change no rule of its own refuses, both in the default version (or `version`). */
export function bodyAllowing(resource: Resource, patches: readonly Record<string, unknown>[], version: VersionView = DEFAULT_VERSION): Record<string, unknown> {
  for (let n = 0; n < SEARCHED; n++) {
    if (patches.every((patch) => refusing(resource, n, version, patch).length === 0)) return validBody(resource, n, version);
  }
  throw new Error(`${resource.plural}: no body along validBody's series from which its rules allow ${JSON.stringify(patches)}`);
}
