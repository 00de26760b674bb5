DROP INDEX `fx_valuations_company`;--> statement-breakpoint
DROP INDEX `transfers_originator`;--> statement-breakpoint
DROP INDEX `transfers_external_id`;--> statement-breakpoint
DROP INDEX `transfers_provider_external`;--> statement-breakpoint
DROP INDEX `transfers_tx_hash`;--> statement-breakpoint
CREATE INDEX `transfers_active_originator` ON `transfers` (`originator_customer_id`) WHERE state NOT IN ('completed', 'rejected', 'cancelled');--> statement-breakpoint
CREATE INDEX `transfers_active_beneficiary` ON `transfers` (`beneficiary_customer_id`) WHERE state NOT IN ('completed', 'rejected', 'cancelled');--> statement-breakpoint
CREATE UNIQUE INDEX `transfers_external_id` ON `transfers` (`company_id`,`environment`,`external_id`) WHERE external_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transfers_provider_external` ON `transfers` (`company_id`,`environment`,`provider_external_id`) WHERE provider_external_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transfers_tx_hash` ON `transfers` (`company_id`,`environment`,`tx_hash`) WHERE tx_hash IS NOT NULL;