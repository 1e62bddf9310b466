-- The webhook fan-out moves from a trigger on the events table to a statement the event recorder runs
-- right after each event, in the same savepoint (src/sqlite/webhook-fan-out.ts): the same deliveries,
-- made in the same transaction, at a fraction of a create's cost (a trigger's program ran on every
-- event, webhooks or not). No row changes.
DROP TRIGGER webhooks_fan_out;
