-- API version 2026-12-05: a product's price has a currency, as sql/007_product_currency.sql says for
-- SQLite: products stored before it, their events' data and the deliveries' copies get the currency
-- SVC_DEFAULT_CURRENCY names in migrate's environment; the column keeps no default afterwards.
ALTER TABLE products ADD COLUMN price_currency text NOT NULL DEFAULT '{{SVC_DEFAULT_CURRENCY}}' CHECK (char_length(price_currency) = 3);
ALTER TABLE products ALTER COLUMN price_currency DROP DEFAULT;

-- The data's column order gains the currency after the amount (index 3).
UPDATE events SET data = jsonb_insert(data::jsonb, '{3}', to_jsonb('{{SVC_DEFAULT_CURRENCY}}'::text))::text
 WHERE type IN (1, 2, 3) AND jsonb_array_length(data::jsonb) = 7;
UPDATE webhook_deliveries SET event_data = jsonb_insert(event_data::jsonb, '{3}', to_jsonb('{{SVC_DEFAULT_CURRENCY}}'::text))::text
 WHERE event_type IN (1, 2, 3) AND jsonb_array_length(event_data::jsonb) = 7;
