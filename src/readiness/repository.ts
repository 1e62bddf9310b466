/** What readiness needs of storage: a read that proves the database answers. */
export interface ReadinessRepository {
  /** The schema version (the number of the last migration applied); rejects when the database cannot be read. */
  schemaVersion(): Promise<number>;
}
