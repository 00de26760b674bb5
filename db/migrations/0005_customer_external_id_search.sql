ALTER TABLE `customers` ADD `external_id_search` text;--> statement-breakpoint
UPDATE `customers` SET `external_id_search` = lower(`external_id`) WHERE `external_id` IS NOT NULL;
