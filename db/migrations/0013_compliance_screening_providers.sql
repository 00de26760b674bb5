-- Issues 13 to 19: rules, cases (with their notes, history, links and blind-index search), suspicion reports,
-- provider_a's processed webhook messages, the transfer search queue, and the webhook delivery indexes.
CREATE TABLE `transfers_search_pending` (
	`transfer_rowid` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `provider_a_messages` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`entity` text NOT NULL,
	`message_id` text NOT NULL,
	`body_sha256` text NOT NULL,
	`provider_transfer_id` text NOT NULL,
	`transfer_id` text,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `entity`, `message_id`, `body_sha256`)
);
--> statement-breakpoint
CREATE TABLE `case_counters` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`company_id`, `environment`)
);
--> statement-breakpoint
CREATE TABLE `case_history` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`case_id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`action` text NOT NULL,
	`field` text,
	`old_value` text,
	`new_value` text,
	`sealed` integer DEFAULT 0 NOT NULL,
	`user_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `case_history_id_unique` ON `case_history` (`id`);--> statement-breakpoint
CREATE INDEX `case_history_case` ON `case_history` (`case_id`,`seq`);--> statement-breakpoint
CREATE TABLE `case_notes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`case_id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`content_sealed` text NOT NULL,
	`author_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `case_notes_id_unique` ON `case_notes` (`id`);--> statement-breakpoint
CREATE INDEX `case_notes_case` ON `case_notes` (`case_id`,`seq`);--> statement-breakpoint
CREATE TABLE `case_text_grams` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`gram` text NOT NULL,
	`case_id` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `gram`, `case_id`)
);
--> statement-breakpoint
CREATE INDEX `case_text_grams_case` ON `case_text_grams` (`case_id`);--> statement-breakpoint
CREATE TABLE `cases` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`seq` integer NOT NULL,
	`case_number` text NOT NULL,
	`title_sealed` text NOT NULL,
	`description_sealed` text,
	`type` text NOT NULL,
	`category` text NOT NULL,
	`priority` text NOT NULL,
	`status` text NOT NULL,
	`resolution` text,
	`resolution_note_sealed` text,
	`assignee_id` text,
	`rule_id` text,
	`transfer_ids` text DEFAULT '[]' NOT NULL,
	`first_transfer_id` text,
	`source` text NOT NULL,
	`note_count` integer DEFAULT 0 NOT NULL,
	`created_by_id` text,
	`resolved_at` text,
	`resolved_by_id` text,
	`resolution_context` text,
	`transfer_outcome` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cases_number` ON `cases` (`company_id`,`environment`,`seq`);--> statement-breakpoint
CREATE INDEX `cases_list` ON `cases` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `cases_status` ON `cases` (`company_id`,`environment`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `cases_assignee` ON `cases` (`company_id`,`environment`,`assignee_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `cases_transfer` ON `cases` (`company_id`,`environment`,`first_transfer_id`);--> statement-breakpoint
CREATE TABLE `reports` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`kind` text NOT NULL,
	`seq` integer NOT NULL,
	`report_number` text NOT NULL,
	`report_number_search` text NOT NULL,
	`jurisdiction` text NOT NULL,
	`transfer_id` text NOT NULL,
	`case_id` text,
	`status` text NOT NULL,
	`detection_method` text NOT NULL,
	`generated_by` text NOT NULL,
	`generated_at` text NOT NULL,
	`narrative_sealed` text,
	`risk_indicators_sealed` text NOT NULL,
	`regulatory_data_sealed` text NOT NULL,
	`filing_ready` integer DEFAULT 0 NOT NULL,
	`text_length` integer DEFAULT 0 NOT NULL,
	`has_cjk` integer DEFAULT 0 NOT NULL,
	`submitted_at` text,
	`submitted_by` text,
	`approved_at` text,
	`approved_by` text,
	`filed_at` text,
	`filed_by` text,
	`filing_reference` text,
	`filing_reference_search` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reports_number` ON `reports` (`company_id`,`environment`,`seq`);--> statement-breakpoint
CREATE INDEX `reports_list` ON `reports` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status` ON `reports` (`company_id`,`environment`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_transfer` ON `reports` (`company_id`,`environment`,`transfer_id`);--> statement-breakpoint
CREATE TABLE `rules` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`stage` text NOT NULL,
	`action` text NOT NULL,
	`severity` text NOT NULL,
	`is_active` integer NOT NULL,
	`threshold` text,
	`threshold_currency` text,
	`jurisdictions` text NOT NULL,
	`metadata` text,
	`condition` text,
	`condition_count` integer DEFAULT 0 NOT NULL,
	`search_text` text NOT NULL,
	`created_by_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rules_by_environment` ON `rules` (`company_id`,`environment`);--> statement-breakpoint
CREATE INDEX `rules_active` ON `rules` (`company_id`,`environment`,`is_active`);--> statement-breakpoint
DROP INDEX `webhook_deliveries_status`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_queue`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_pending`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending_queue` ON `webhook_deliveries` (`webhook_id`,`event_seq`,`id`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_failed` ON `webhook_deliveries` (`webhook_id`,`created_at`,`id`) WHERE status = 'failed';--> statement-breakpoint
-- Case list totals kept by triggers (as migration 0004 does for customers and wallets): unfiltered and
-- open-only lists answer meta.total without counting rows, whoever writes (the case actors, the CLI).
CREATE TRIGGER `cases_count_insert` AFTER INSERT ON `cases` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (new.company_id, new.environment, 'cases', 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT new.company_id, new.environment, 'cases:open', 1 WHERE new.status = 'open'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `cases_count_status` AFTER UPDATE OF `status` ON `cases`
WHEN (old.status = 'open') <> (new.status = 'open') BEGIN
  INSERT INTO list_counts (company_id, environment, list, n)
    VALUES (new.company_id, new.environment, 'cases:open', CASE WHEN new.status = 'open' THEN 1 ELSE -1 END)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `cases_count_delete` AFTER DELETE ON `cases` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (old.company_id, old.environment, 'cases', -1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT old.company_id, old.environment, 'cases:open', -1 WHERE old.status = 'open'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
-- Issue 19: the transfer search index leaves the request path. A new transfer's rowid goes to transfers_search_pending
-- (one small row); a background sweep (Transfers.indexPending) adds pending transfers to transfers_search and removes
-- them from the queue in one transaction; a search also scans the pending rows directly. Updates and deletes touch
-- the FTS index only for transfers already in it (an FTS5 'delete' of values never indexed would corrupt it).
DROP TRIGGER `transfers_search_insert`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_insert` AFTER INSERT ON `transfers` BEGIN
  INSERT INTO transfers_search_pending (transfer_rowid) VALUES (new.rowid);
END;
--> statement-breakpoint
DROP TRIGGER `transfers_search_delete`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_delete` AFTER DELETE ON `transfers` BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  SELECT 'delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address
  WHERE NOT EXISTS (SELECT 1 FROM transfers_search_pending WHERE transfer_rowid = old.rowid);
  DELETE FROM transfers_search_pending WHERE transfer_rowid = old.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `transfers_search_update`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_update` AFTER UPDATE OF `external_id`, `originator_vasp_id`, `beneficiary_vasp_id`, `originator_address`, `beneficiary_address` ON `transfers`
WHEN NOT EXISTS (SELECT 1 FROM transfers_search_pending WHERE transfer_rowid = old.rowid) BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES ('delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address);
  INSERT INTO transfers_search (rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES (new.rowid, new.id, new.external_id, new.originator_vasp_id, new.beneficiary_vasp_id, new.originator_address, new.beneficiary_address);
END;
