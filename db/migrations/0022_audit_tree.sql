-- The audit log as Merkle trees (docs/architecture.md#the-audit-log-tree): one tree per company and environment. Each
-- leaf is one audit entry (its canonical encoding hashed per RFC 6962); the complete subtrees' hashes are kept so a
-- proof reads O(log n) rows; checkpoints are the signed tree heads; the signing keys' public halves stay listed.
CREATE TABLE `audit_trees` (
	`log_id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`origin` text NOT NULL,
	`size` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_leaves` (
	`log_id` text NOT NULL,
	`leaf_index` integer NOT NULL,
	`entry_seq` integer NOT NULL,
	`leaf_hash` blob NOT NULL,
	PRIMARY KEY(`log_id`, `leaf_index`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_leaves_entry` ON `audit_leaves` (`entry_seq`);--> statement-breakpoint
CREATE TABLE `audit_tree_nodes` (
	`log_id` text NOT NULL,
	`level` integer NOT NULL,
	`idx` integer NOT NULL,
	`hash` blob NOT NULL,
	PRIMARY KEY(`log_id`, `level`, `idx`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `audit_checkpoints` (
	`log_id` text NOT NULL,
	`tree_size` integer NOT NULL,
	`created_at` text NOT NULL,
	`key_id` text NOT NULL,
	`note` text NOT NULL,
	PRIMARY KEY(`log_id`, `tree_size`, `key_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `audit_signing_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`created_at` text NOT NULL,
	`retired_at` text
);
--> statement-breakpoint
CREATE TRIGGER `audit_leaves_no_update` BEFORE UPDATE ON `audit_leaves`
BEGIN
  SELECT RAISE(ABORT, 'audit_leaves is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_leaves_no_delete` BEFORE DELETE ON `audit_leaves`
BEGIN
  SELECT RAISE(ABORT, 'audit_leaves is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_tree_nodes_no_update` BEFORE UPDATE ON `audit_tree_nodes`
BEGIN
  SELECT RAISE(ABORT, 'audit_tree_nodes is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_tree_nodes_no_delete` BEFORE DELETE ON `audit_tree_nodes`
BEGIN
  SELECT RAISE(ABORT, 'audit_tree_nodes is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_checkpoints_no_update` BEFORE UPDATE ON `audit_checkpoints`
BEGIN
  SELECT RAISE(ABORT, 'audit_checkpoints is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_checkpoints_no_delete` BEFORE DELETE ON `audit_checkpoints`
BEGIN
  SELECT RAISE(ABORT, 'audit_checkpoints is append-only');
END;
