/** Readiness values on the wire (API.md §1). */
export const ReadinessStatus = { ready: 1, unavailable: 2 } as const;
export type ReadinessStatus = (typeof ReadinessStatus)[keyof typeof ReadinessStatus];

/** The outcome of a readiness check. */
export interface Readiness {
  status: ReadinessStatus;
  checks: { database: ReadinessStatus; schema: ReadinessStatus };
}
