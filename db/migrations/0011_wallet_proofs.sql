CREATE TABLE `wallet_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`wallet_id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`address` text NOT NULL,
	`message` text NOT NULL,
	`nonce` text NOT NULL,
	`issued_by` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	`proof_id` text,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `wallet_challenges_wallet` ON `wallet_challenges` (`wallet_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `wallet_challenges_recent` ON `wallet_challenges` (`company_id`,`environment`,`created_at`);--> statement-breakpoint
CREATE TABLE `wallet_proofs` (
	`id` text PRIMARY KEY NOT NULL,
	`wallet_id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`recorded_by` text,
	`recorded_at` text NOT NULL,
	`evidence` text,
	`note_sealed` text,
	`expires_at` text,
	`revoked_at` text,
	`revoked_by` text,
	`challenge_id` text,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `wallet_proofs_wallet` ON `wallet_proofs` (`wallet_id`,`recorded_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_proofs_challenge` ON `wallet_proofs` (`challenge_id`);--> statement-breakpoint
CREATE INDEX `wallet_proofs_due` ON `wallet_proofs` (`expires_at`) WHERE status = 'valid' AND expires_at IS NOT NULL;