/** Readiness values on the wire (docs/api.md). */
export const ReadinessStatus = { ready: 1, unavailable: 2 } as const;
export type ReadinessStatus = (typeof ReadinessStatus)[keyof typeof ReadinessStatus];

/** The outcome of a readiness check. */
export interface Readiness {
  status: ReadinessStatus;
  checks: { database: ReadinessStatus; schema: ReadinessStatus };
}
