CREATE TABLE `provider_b_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`sender` text NOT NULL,
	`transfer_id` text NOT NULL,
	`kind` text NOT NULL,
	`content_hash` text NOT NULL,
	`state` text NOT NULL,
	`started_at` text NOT NULL,
	`completed_at` text,
	`answer_sealed` text,
	`transfer_ref` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `provider_b_requests_key` ON `provider_b_requests` (`company_id`,`environment`,`sender`,`transfer_id`);--> statement-breakpoint
CREATE INDEX `transfers_provider_external` ON `transfers` (`company_id`,`environment`,`provider_external_id`);--> statement-breakpoint
CREATE INDEX `transfers_tx_hash` ON `transfers` (`company_id`,`environment`,`tx_hash`);