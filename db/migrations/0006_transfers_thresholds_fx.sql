CREATE TABLE `fx_valuations` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`asset_id` text NOT NULL,
	`amount` text NOT NULL,
	`currency` text NOT NULL,
	`rate` text NOT NULL,
	`value` text NOT NULL,
	`source` text NOT NULL,
	`rate_as_of` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fx_valuations_company` ON `fx_valuations` (`company_id`,`environment`,`created_at`);--> statement-breakpoint
CREATE TABLE `thresholds` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`country_code` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`threshold_amount` text NOT NULL,
	`threshold_currency` text NOT NULL,
	`regulation` text NOT NULL,
	`regulatory_body` text,
	`effective_date` text,
	`filing_deadline_days` integer,
	`is_eu_member` integer NOT NULL,
	`requires_originator_account` integer NOT NULL,
	`is_active` integer NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`updated_by` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `thresholds_jurisdiction_type` ON `thresholds` (`company_id`,`country_code`,`type`);--> statement-breakpoint
CREATE INDEX `thresholds_order` ON `thresholds` (`company_id`,`country_code`,`type`,`id`);--> statement-breakpoint
CREATE TABLE `transfers` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`direction` text NOT NULL,
	`state` text NOT NULL,
	`status` text NOT NULL,
	`external_id` text,
	`asset` text NOT NULL,
	`asset_id` text,
	`amount` text NOT NULL,
	`network` text NOT NULL,
	`blockchain_type` text,
	`originator_customer_id` text,
	`originator_address` text,
	`beneficiary_address` text NOT NULL,
	`beneficiary_customer_id` text,
	`is_unhosted_wallet` integer DEFAULT 0 NOT NULL,
	`originator_sealed` text,
	`beneficiary_sealed` text,
	`originator_vasp_id` text,
	`originator_vasp_name` text,
	`beneficiary_vasp_id` text,
	`beneficiary_vasp_name` text,
	`preferred_protocol` text,
	`protocol` text,
	`provider_external_id` text,
	`matched_at` text,
	`ours_status` text,
	`theirs_status` text,
	`rejection_reason` text,
	`rejection_details_sealed` text,
	`tx_hash` text,
	`sanctions_status` text,
	`sanctions_provider` text,
	`threshold_info` text,
	`fx_rate_id` text,
	`checks` text DEFAULT '[]' NOT NULL,
	`attempts` text DEFAULT '[]' NOT NULL,
	`messages` text DEFAULT '[]' NOT NULL,
	`history` text DEFAULT '[]' NOT NULL,
	`expires_at` text,
	`accepted_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transfers_external_id` ON `transfers` (`company_id`,`environment`,`external_id`);--> statement-breakpoint
CREATE INDEX `transfers_list` ON `transfers` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transfers_state` ON `transfers` (`company_id`,`environment`,`state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transfers_status` ON `transfers` (`company_id`,`environment`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transfers_originator` ON `transfers` (`originator_customer_id`,`state`);