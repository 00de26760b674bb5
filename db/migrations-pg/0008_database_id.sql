-- Hand-written: the database's own ID, as SQLite's engine records it on first open (database_meta `database_id`, a
-- random UUID). The audit trees name their origin after it (`caravan/<database id>/audit/<company>/<environment>`)
-- unless CARAVAN_AUDIT_ORIGIN is set, so two databases never sign checkpoints under the same name.
INSERT INTO "database_meta" ("key", "value") VALUES ('database_id', gen_random_uuid()::text) ON CONFLICT DO NOTHING;
