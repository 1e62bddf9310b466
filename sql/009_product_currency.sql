-- API version 2026-12-05: a product's price has a currency (src/products/price-with-currency.ts).
-- The products stored before it, and the data of their events and of the webhook deliveries that copy
-- them, get the currency SVC_DEFAULT_CURRENCY names in the environment of the migrate that applies
-- this file (EUR by default). From then on every insert names its currency: the column's default is
-- never used again, whatever the variable says later.
ALTER TABLE products ADD COLUMN price_currency TEXT NOT NULL DEFAULT '{{SVC_DEFAULT_CURRENCY}}' CHECK (length(price_currency) = 3);

-- An event's data is the row in the order of the resource's columns, which now has the currency after
-- the amount: id, name, price_in_cents, price_currency, status, created_at, updated_at, version.
UPDATE events
   SET data = json_array(data ->> 0, data ->> 1, data ->> 2, '{{SVC_DEFAULT_CURRENCY}}', data ->> 3, data ->> 4, data ->> 5, data ->> 6)
 WHERE type IN (1, 2, 3) AND json_array_length(data) = 7;
UPDATE webhook_deliveries
   SET event_data = json_array(event_data ->> 0, event_data ->> 1, event_data ->> 2, '{{SVC_DEFAULT_CURRENCY}}', event_data ->> 3, event_data ->> 4, event_data ->> 5, event_data ->> 6)
 WHERE event_type IN (1, 2, 3) AND json_array_length(event_data) = 7;
