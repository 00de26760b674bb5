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
CREATE INDEX `reports_transfer` ON `reports` (`company_id`,`environment`,`transfer_id`);