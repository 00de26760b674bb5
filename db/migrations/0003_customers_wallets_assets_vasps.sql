CREATE TABLE `customer_name_grams` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`gram` text NOT NULL,
	`customer_id` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `gram`, `customer_id`)
);
--> statement-breakpoint
CREATE INDEX `customer_name_grams_customer` ON `customer_name_grams` (`customer_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`external_id` text,
	`name_sealed` text,
	`metadata_sealed` text,
	`identity_sealed` text,
	`identity_status` text,
	`identity_country` text,
	`public_key` text,
	`private_key_sealed` text,
	`status` text NOT NULL,
	`deactivated_at` text,
	`deactivated_by` text,
	`deactivation_reason_sealed` text,
	`erased_at` text,
	`erased_by` text,
	`erasure_reason_sealed` text,
	`legal_hold` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_external_id` ON `customers` (`company_id`,`environment`,`external_id`);--> statement-breakpoint
CREATE INDEX `customers_list_all` ON `customers` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `customers_list_status` ON `customers` (`company_id`,`environment`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `wallets` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`customer_id` text NOT NULL,
	`address` text NOT NULL,
	`network` text NOT NULL,
	`label` text,
	`verified` integer DEFAULT 0 NOT NULL,
	`verified_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_address` ON `wallets` (`company_id`,`environment`,`address`);--> statement-breakpoint
CREATE INDEX `wallets_list` ON `wallets` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `wallets_customer` ON `wallets` (`company_id`,`environment`,`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `wallets_network` ON `wallets` (`company_id`,`environment`,`network`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `asset_policies` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`asset_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `asset_id`)
);
--> statement-breakpoint
CREATE TABLE `vasp_names` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`vasp_id` text NOT NULL,
	`name` text NOT NULL,
	`source` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `vasp_id`, `name`)
);
--> statement-breakpoint
CREATE INDEX `vasp_names_seen` ON `vasp_names` (`company_id`,`environment`,`vasp_id`,`last_seen_at`);