import type { Refusal } from './resource.ts';

/** A create refused by a check of its resource (a rule that reads other resources): answered with the check's own error. */
export class CheckRefused extends Error {
  override name = 'CheckRefused';
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.detail);
    this.refusal = refusal;
  }
}
