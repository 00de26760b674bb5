-- Hand-written (drizzle-kit does not model triggers): the PL/pgSQL twins of SQLite's triggers that keep list totals,
-- webhook delivery counters, and the audit tables append-only. Trigger names and tables are SQLite's, so the
-- catalogue test (test/storage/catalogue.test.ts) pairs them one to one.

-- Append-only audit tables: an UPDATE or a DELETE fails (SQLite: RAISE(ABORT, '<table> is append-only')). TRUNCATE
-- skips row triggers on PostgreSQL, so it is refused by a statement trigger as well (SQLite has no TRUNCATE).
CREATE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update" BEFORE UPDATE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_delete" BEFORE DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log" FOR EACH STATEMENT EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_leaves_no_update" BEFORE UPDATE ON "audit_leaves" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_leaves_no_delete" BEFORE DELETE ON "audit_leaves" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_leaves_no_truncate" BEFORE TRUNCATE ON "audit_leaves" FOR EACH STATEMENT EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_tree_nodes_no_update" BEFORE UPDATE ON "audit_tree_nodes" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_tree_nodes_no_delete" BEFORE DELETE ON "audit_tree_nodes" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_tree_nodes_no_truncate" BEFORE TRUNCATE ON "audit_tree_nodes" FOR EACH STATEMENT EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_checkpoints_no_update" BEFORE UPDATE ON "audit_checkpoints" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_checkpoints_no_delete" BEFORE DELETE ON "audit_checkpoints" FOR EACH ROW EXECUTE FUNCTION append_only();
--> statement-breakpoint
CREATE TRIGGER "audit_checkpoints_no_truncate" BEFORE TRUNCATE ON "audit_checkpoints" FOR EACH STATEMENT EXECUTE FUNCTION append_only();
--> statement-breakpoint

-- List totals (SQLite migrations 0004, 0007, 0013): `<list>` counts every row, `<list>:<state>` the rows whose status
-- is <state> (customers:active, cases:open). One function for every list: TG_ARGV[0] is the list, TG_ARGV[1] the
-- counted state when there is one.
CREATE FUNCTION list_counts_add(company text, env text, list_name text, d integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (company, env, list_name, d)
    ON CONFLICT (company_id, environment, list) DO UPDATE SET n = list_counts.n + excluded.n;
$$;
--> statement-breakpoint
CREATE FUNCTION list_counts_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  list_name text := TG_ARGV[0];
  state text := CASE WHEN TG_NARGS > 1 THEN TG_ARGV[1] END;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM list_counts_add(NEW.company_id, NEW.environment, list_name, 1);
    IF state IS NOT NULL THEN
      IF NEW.status = state THEN PERFORM list_counts_add(NEW.company_id, NEW.environment, list_name || ':' || state, 1); END IF;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM list_counts_add(OLD.company_id, OLD.environment, list_name, -1);
    IF state IS NOT NULL THEN
      IF OLD.status = state THEN PERFORM list_counts_add(OLD.company_id, OLD.environment, list_name || ':' || state, -1); END IF;
    END IF;
  ELSE -- UPDATE OF status, only when the row enters or leaves the counted state (the trigger's WHEN)
    PERFORM list_counts_add(NEW.company_id, NEW.environment, list_name || ':' || state, CASE WHEN NEW.status = state THEN 1 ELSE -1 END);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "customers_count_insert" AFTER INSERT ON "customers" FOR EACH ROW EXECUTE FUNCTION list_counts_row('customers', 'active');
--> statement-breakpoint
CREATE TRIGGER "customers_count_status" AFTER UPDATE OF "status" ON "customers" FOR EACH ROW
  WHEN ((OLD.status = 'active') <> (NEW.status = 'active')) EXECUTE FUNCTION list_counts_row('customers', 'active');
--> statement-breakpoint
CREATE TRIGGER "customers_count_delete" AFTER DELETE ON "customers" FOR EACH ROW EXECUTE FUNCTION list_counts_row('customers', 'active');
--> statement-breakpoint
CREATE TRIGGER "wallets_count_insert" AFTER INSERT ON "wallets" FOR EACH ROW EXECUTE FUNCTION list_counts_row('wallets');
--> statement-breakpoint
CREATE TRIGGER "wallets_count_delete" AFTER DELETE ON "wallets" FOR EACH ROW EXECUTE FUNCTION list_counts_row('wallets');
--> statement-breakpoint
CREATE TRIGGER "transfers_count_insert" AFTER INSERT ON "transfers" FOR EACH ROW EXECUTE FUNCTION list_counts_row('transfers');
--> statement-breakpoint
CREATE TRIGGER "transfers_count_delete" AFTER DELETE ON "transfers" FOR EACH ROW EXECUTE FUNCTION list_counts_row('transfers');
--> statement-breakpoint
CREATE TRIGGER "cases_count_insert" AFTER INSERT ON "cases" FOR EACH ROW EXECUTE FUNCTION list_counts_row('cases', 'open');
--> statement-breakpoint
CREATE TRIGGER "cases_count_status" AFTER UPDATE OF "status" ON "cases" FOR EACH ROW
  WHEN ((OLD.status = 'open') <> (NEW.status = 'open')) EXECUTE FUNCTION list_counts_row('cases', 'open');
--> statement-breakpoint
CREATE TRIGGER "cases_count_delete" AFTER DELETE ON "cases" FOR EACH ROW EXECUTE FUNCTION list_counts_row('cases', 'open');
--> statement-breakpoint

-- Webhook delivery counters (SQLite migration 0010), kept whoever writes a delivery.
CREATE FUNCTION webhook_deliveries_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE webhooks SET
      delivery_count = delivery_count + 1,
      sent_count = sent_count + (NEW.status = 'sent')::int,
      failed_count = failed_count + (NEW.status = 'failed')::int,
      response_ms_sum = response_ms_sum + coalesce(NEW.response_time_ms, 0),
      response_count = response_count + (NEW.response_time_ms IS NOT NULL)::int
    WHERE id = NEW.webhook_id;
  ELSE
    UPDATE webhooks SET
      sent_count = sent_count + (NEW.status = 'sent')::int - (OLD.status = 'sent')::int,
      failed_count = failed_count + (NEW.status = 'failed')::int - (OLD.status = 'failed')::int,
      response_ms_sum = response_ms_sum + coalesce(NEW.response_time_ms, 0) - coalesce(OLD.response_time_ms, 0),
      response_count = response_count + (NEW.response_time_ms IS NOT NULL)::int - (OLD.response_time_ms IS NOT NULL)::int
    WHERE id = NEW.webhook_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_stats_insert" AFTER INSERT ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_stats();
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_stats_update" AFTER UPDATE OF "status", "response_time_ms" ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION webhook_deliveries_stats();
