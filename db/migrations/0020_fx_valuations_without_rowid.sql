-- fx_valuations as a WITHOUT ROWID table keyed by its ID: valuations are read by ID only, so the table and its
-- separate ID index (sqlite_autoindex_fx_valuations_1) become one B-tree: a create writes one B-tree less and a
-- stored transfer's valuation takes ~42 bytes less. Columns and values are unchanged. Written by hand: drizzle's
-- schema language has no WITHOUT ROWID (db/schema/transfers.ts says so beside the table).
CREATE TABLE `__new_fx_valuations` (
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
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_fx_valuations` (`id`, `company_id`, `environment`, `asset_id`, `amount`, `currency`, `rate`, `value`, `source`, `rate_as_of`, `created_at`)
SELECT `id`, `company_id`, `environment`, `asset_id`, `amount`, `currency`, `rate`, `value`, `source`, `rate_as_of`, `created_at` FROM `fx_valuations`;
--> statement-breakpoint
DROP TABLE `fx_valuations`;
--> statement-breakpoint
ALTER TABLE `__new_fx_valuations` RENAME TO `fx_valuations`;
