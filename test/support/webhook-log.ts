import type { TestDatabase } from './test-database.ts';

/**
 * Writes `rows` delivered deliveries of webhook `webhookId` behind the service's back (a long log, as
 * months of use leave), 20,000 a statement so each stays well within a statement timeout on a loaded
 * machine. Their events are recorded now: no retention touches them.
 */
export async function fillDeliveryLog(database: TestDatabase, webhookId: number, rows: number): Promise<void> {
  const at = new Date().toISOString();
  const data = `'[1,"Desk lamp with a name long enough to look real",1999,1,"${at}","${at}"]'`;
  const columns = 'webhook_id, event_id, event_type, event_created_at, event_data, status, attempts, round_attempts, last_attempt_at, last_response_status';
  const values = `${webhookId}, 'log' || i, 1, '${at}', ${data}, 2, 1, 1, ${Date.now()}, 200`;
  for (let from = 1; from <= rows; from += 20_000) {
    const to = Math.min(rows, from + 19_999);
    await database.sql(
      database.engine === 'postgres'
        ? `INSERT INTO webhook_deliveries (${columns}) SELECT ${values} FROM generate_series(${from}, ${to}) AS i`
        : `INSERT INTO webhook_deliveries (${columns}) WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to}) SELECT ${values} FROM n`,
    );
  }
}
