CREATE TABLE `provider_credentials` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text NOT NULL,
	`credentials_sealed` text NOT NULL,
	`configured_fields` text NOT NULL,
	`notes` text,
	`last_tested_at` text,
	`last_test_result` text,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `name`)
);
--> statement-breakpoint
CREATE TABLE `provider_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT 0 NOT NULL,
	`enabled_changed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `provider_settings_company_name` ON `provider_settings` (`company_id`,`name`);