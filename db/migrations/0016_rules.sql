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
CREATE INDEX `rules_list` ON `rules` (`company_id`,`environment`,`id`);--> statement-breakpoint
CREATE INDEX `rules_active` ON `rules` (`company_id`,`environment`,`is_active`);