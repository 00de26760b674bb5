-- Hand-written: the change notice, PostgreSQL's twin of SQLite's `PRAGMA data_version` for the caches
-- (src/adapters/storage/postgres/notice.ts). A statement that changes what a cache holds queues
-- `NOTIFY caravan_changes` inside its transaction, its payload the transaction's ID; PostgreSQL delivers it to every
-- listening session when, and only when, the transaction commits, one notice per transaction (identical notices of
-- one transaction are folded into one). A cache fill compares that ID with the snapshot it read under. Row triggers, so that an UPDATE or DELETE that matches no row sends nothing;
-- a statement trigger for TRUNCATE, which skips row triggers.
--
-- What is cached, and so what notifies: companies (the authentication cache's companies, the thresholds cache's
-- profile and name), members' email, role and status (what a key authenticates as), API keys but for their last
-- use (written once a minute per key in use: it would empty every cache that often, and no cached answer depends on
-- it), rules (the active rules), thresholds, and asset policies. Sessions are not cached (every use renews one).
CREATE FUNCTION caravan_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('caravan_changes', pg_current_xact_id()::text);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "companies_changes" AFTER INSERT OR UPDATE OR DELETE ON "companies" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "companies_changes_truncate" AFTER TRUNCATE ON "companies" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "members_changes" AFTER INSERT OR DELETE OR UPDATE OF "company_id", "email", "role", "status" ON "members" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "members_changes_truncate" AFTER TRUNCATE ON "members" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "api_keys_changes" AFTER INSERT OR DELETE OR UPDATE OF "company_id", "member_id", "environment", "key_hash", "hint", "scopes", "created_at", "revoked_at", "expires_at" ON "api_keys" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "api_keys_changes_truncate" AFTER TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "rules_changes" AFTER INSERT OR UPDATE OR DELETE ON "rules" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "rules_changes_truncate" AFTER TRUNCATE ON "rules" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "thresholds_changes" AFTER INSERT OR UPDATE OR DELETE ON "thresholds" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "thresholds_changes_truncate" AFTER TRUNCATE ON "thresholds" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "asset_policies_changes" AFTER INSERT OR UPDATE OR DELETE ON "asset_policies" FOR EACH ROW EXECUTE FUNCTION caravan_notify_change();
--> statement-breakpoint
CREATE TRIGGER "asset_policies_changes_truncate" AFTER TRUNCATE ON "asset_policies" FOR EACH STATEMENT EXECUTE FUNCTION caravan_notify_change();
