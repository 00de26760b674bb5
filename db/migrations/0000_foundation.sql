CREATE TABLE `actor_dead_letters` (
	`id` integer PRIMARY KEY NOT NULL,
	`actor` text NOT NULL,
	`body` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`created_at` integer NOT NULL,
	`died_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actor_dead_letters_actor` ON `actor_dead_letters` (`actor`);--> statement-breakpoint
CREATE TABLE `actor_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor` text NOT NULL,
	`body` text NOT NULL,
	`due_at` integer NOT NULL,
	`retry_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`reply_to` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actor_messages_actor_id` ON `actor_messages` (`actor`,`id`);--> statement-breakpoint
CREATE INDEX `actor_messages_due` ON `actor_messages` (`due_at`);--> statement-breakpoint
CREATE TABLE `actor_state` (
	`address` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`last_message_id` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`type` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_company_env_seq` ON `events` (`company_id`,`environment`,`seq`);