-- Members sign in to the console (docs/api.md, "Keys and sessions"): a passphrase kept only as a scrypt hash, a TOTP
-- second factor sealed under the master key, a one-time setup code (hash only) the CLI prints on the host.
ALTER TABLE `members` ADD `passphrase_hash` text;
--> statement-breakpoint
ALTER TABLE `members` ADD `totp_secret_sealed` text;
--> statement-breakpoint
ALTER TABLE `members` ADD `totp_confirmed_at` text;
--> statement-breakpoint
ALTER TABLE `members` ADD `totp_last_step` integer;
--> statement-breakpoint
ALTER TABLE `members` ADD `setup_code_hash` text;
--> statement-breakpoint
ALTER TABLE `members` ADD `setup_code_expires_at` text;
--> statement-breakpoint
-- Sessions: bearer tokens bound to the member; only the SHA-256 of the token is kept.
CREATE TABLE `member_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`member_id` text NOT NULL,
	`environment` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`source` text,
	`created_at` text NOT NULL,
	`last_used_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`ended_at` text,
	`ended_reason` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `member_sessions_token_hash_unique` ON `member_sessions` (`token_hash`);
--> statement-breakpoint
CREATE INDEX `member_sessions_member` ON `member_sessions` (`member_id`, `ended_at`);
--> statement-breakpoint
-- Keys: an optional expiry given at creation, and when the key was last used (written at most once a minute).
ALTER TABLE `api_keys` ADD `expires_at` text;
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `last_used_at` text;
--> statement-breakpoint
-- Four eyes: the member who last edited a report cannot approve it.
ALTER TABLE `reports` ADD `last_edited_by` text;
--> statement-breakpoint
-- Every operator action names the session it came from.
ALTER TABLE `audit_log` ADD `session_id` text;
--> statement-breakpoint
CREATE INDEX `audit_log_member` ON `audit_log` (`company_id`, `environment`, `member_id`, `seq`);
