CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`event_id` text,
	`event_seq` integer,
	`event_type` text NOT NULL,
	`body` text NOT NULL,
	`signature` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`http_status` integer,
	`response_time_ms` integer,
	`last_error` text,
	`next_retry_at` integer,
	`sent_at` text,
	`retry_claim_until` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_list` ON `webhook_deliveries` (`webhook_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status` ON `webhook_deliveries` (`webhook_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_type` ON `webhook_deliveries` (`webhook_id`,`event_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_queue` ON `webhook_deliveries` (`webhook_id`,`status`,`event_seq`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending` ON `webhook_deliveries` (`status`,`webhook_id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`status` text NOT NULL,
	`description` text,
	`secret_sealed` text NOT NULL,
	`active_from_seq` integer DEFAULT 0 NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`failing_since` integer,
	`last_delivery_at` text,
	`last_success_at` text,
	`delivery_count` integer DEFAULT 0 NOT NULL,
	`sent_count` integer DEFAULT 0 NOT NULL,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`response_ms_sum` integer DEFAULT 0 NOT NULL,
	`response_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhooks_list` ON `webhooks` (`company_id`,`environment`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhooks_status` ON `webhooks` (`company_id`,`environment`,`status`);--> statement-breakpoint
-- Subscription stats (deliveryCount, sent, failed, average response time) kept by triggers, so GET /webhooks/:id
-- never counts a subscription's deliveries, whoever writes them. Not in the drizzle schema: drizzle-kit does not model triggers.
CREATE TRIGGER `webhook_deliveries_stats_insert` AFTER INSERT ON `webhook_deliveries` BEGIN
  UPDATE webhooks SET
    delivery_count = delivery_count + 1,
    sent_count = sent_count + (new.status = 'sent'),
    failed_count = failed_count + (new.status = 'failed'),
    response_ms_sum = response_ms_sum + coalesce(new.response_time_ms, 0),
    response_count = response_count + (new.response_time_ms IS NOT NULL)
  WHERE id = new.webhook_id;
END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_stats_update` AFTER UPDATE OF `status`, `response_time_ms` ON `webhook_deliveries` BEGIN
  UPDATE webhooks SET
    sent_count = sent_count + (new.status = 'sent') - (old.status = 'sent'),
    failed_count = failed_count + (new.status = 'failed') - (old.status = 'failed'),
    response_ms_sum = response_ms_sum + coalesce(new.response_time_ms, 0) - coalesce(old.response_time_ms, 0),
    response_count = response_count + (new.response_time_ms IS NOT NULL) - (old.response_time_ms IS NOT NULL)
  WHERE id = new.webhook_id;
END;
