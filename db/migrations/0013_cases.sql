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
CREATE INDEX `cases_transfer` ON `cases` (`company_id`,`environment`,`first_transfer_id`);