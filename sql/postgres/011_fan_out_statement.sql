-- Nothing to do on PostgreSQL: its fan-out stays the trigger of sql/postgres/010_api_versions.sql, whose
-- cost a create there hardly notices beside its round trip. SQLite's moved into a statement
-- (sql/011_fan_out_statement.sql); the same number keeps the engines at one version.
SELECT 1;
