CREATE TABLE `provider_a_messages` (
	`company_id` text NOT NULL,
	`environment` text NOT NULL,
	`entity` text NOT NULL,
	`message_id` text NOT NULL,
	`body_sha256` text NOT NULL,
	`provider_transfer_id` text NOT NULL,
	`transfer_id` text,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`company_id`, `environment`, `entity`, `message_id`, `body_sha256`)
);
