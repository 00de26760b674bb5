DROP INDEX `rules_list`;--> statement-breakpoint
CREATE INDEX `rules_by_environment` ON `rules` (`company_id`,`environment`);