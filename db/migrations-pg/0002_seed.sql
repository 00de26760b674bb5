-- Hand-written: what SQLite's migrations insert. The first start creates company `default` (without
-- CARAVAN_APP_DOMAIN every host is `default`), with the same ID and timestamps in the same form (ISO 8601 UTC with
-- milliseconds).
INSERT INTO "companies" ("id", "slug", "name", "status", "disabled_features", "profile", "created_at", "updated_at")
VALUES ('cmp_default', 'default', 'Default company', 'active', '[]', NULL,
        to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
ON CONFLICT DO NOTHING;
