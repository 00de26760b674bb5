-- The audit log is append-only: no row is changed or removed once written.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log`
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log`
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
--> statement-breakpoint
-- The first start creates company `default` (Part 1: without CARAVAN_APP_DOMAIN every host is `default`).
INSERT OR IGNORE INTO `companies` (`id`, `slug`, `name`, `status`, `disabled_features`, `profile`, `created_at`, `updated_at`)
VALUES ('cmp_default', 'default', 'Default company', 'active', '[]', NULL,
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
