/** The part of a node-postgres `Client` a listening connection uses. */
export interface PgListeningClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: () => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  end(): Promise<void>;
}

/** How long the listener waits before connecting again: doubling from the first to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * Keeps one connection that LISTENs on `channel` (a constant identifier), calling `onNotify` for each
 * notification and once after each (re)connection, since notifications sent while it was away are
 * lost. A broken connection is replaced, waiting longer each time up to 5 s, so it recovers by
 * itself after a database outage. Returns how to stop it.
 */
export function keepListening(connect: () => PgListeningClient, channel: string, onNotify: () => void): () => void {
  let stopped = false;
  let current: PgListeningClient | null = null;
  let retryMs = RETRY_FIRST_MS;
  let timer: NodeJS.Timeout | undefined;

  const retry = (): void => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void open();
    }, retryMs);
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  };

  async function open(): Promise<void> {
    const client = connect();
    current = client;
    let broken = false;
    const lose = (): void => {
      if (broken) return;
      broken = true;
      if (current === client) current = null;
      void client.end().catch(() => {});
      retry();
    };
    client.on('error', lose);
    client.on('end', lose);
    client.on('notification', onNotify);
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch {
      return lose();
    }
    if (stopped) return void client.end().catch(() => {});
    retryMs = RETRY_FIRST_MS;
    onNotify();
  }

  void open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    void current?.end().catch(() => {});
    current = null;
  };
}
