DROP INDEX `actor_messages_actor_id`;--> statement-breakpoint
DROP INDEX `actor_messages_due`;