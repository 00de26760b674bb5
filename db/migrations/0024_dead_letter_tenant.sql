-- Which company and environment a dead letter belongs to (from its message, when it names them): the API lists a
-- company's own; the runtime's own actors (the webhook dispatcher) have none and are seen with the CLI only.
ALTER TABLE `actor_dead_letters` ADD `company_id` text;--> statement-breakpoint
ALTER TABLE `actor_dead_letters` ADD `environment` text;--> statement-breakpoint
CREATE INDEX `actor_dead_letters_tenant` ON `actor_dead_letters` (`company_id`,`environment`,`died_at`,`id`);
