-- List totals kept by triggers, so unfiltered lists answer meta.total without counting a million rows,
-- whoever writes (the actors, the CLI). Not in the drizzle schema: drizzle-kit does not model triggers.
CREATE TABLE `list_counts` (
  `company_id` text NOT NULL,
  `environment` text NOT NULL,
  `list` text NOT NULL,
  `n` integer NOT NULL DEFAULT 0,
  PRIMARY KEY (`company_id`, `environment`, `list`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `customers_count_insert` AFTER INSERT ON `customers` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (new.company_id, new.environment, 'customers', 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT new.company_id, new.environment, 'customers:active', 1 WHERE new.status = 'active'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_count_status` AFTER UPDATE OF `status` ON `customers`
WHEN (old.status = 'active') <> (new.status = 'active') BEGIN
  INSERT INTO list_counts (company_id, environment, list, n)
    VALUES (new.company_id, new.environment, 'customers:active', CASE WHEN new.status = 'active' THEN 1 ELSE -1 END)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_count_delete` AFTER DELETE ON `customers` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (old.company_id, old.environment, 'customers', -1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT old.company_id, old.environment, 'customers:active', -1 WHERE old.status = 'active'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_count_insert` AFTER INSERT ON `wallets` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (new.company_id, new.environment, 'wallets', 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_count_delete` AFTER DELETE ON `wallets` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (old.company_id, old.environment, 'wallets', -1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
INSERT INTO list_counts (company_id, environment, list, n) SELECT company_id, environment, 'customers', count(*) FROM customers WHERE true GROUP BY company_id, environment;
--> statement-breakpoint
INSERT INTO list_counts (company_id, environment, list, n) SELECT company_id, environment, 'customers:active', count(*) FROM customers WHERE status = 'active' GROUP BY company_id, environment;
--> statement-breakpoint
INSERT INTO list_counts (company_id, environment, list, n) SELECT company_id, environment, 'wallets', count(*) FROM wallets WHERE true GROUP BY company_id, environment;
--> statement-breakpoint
-- Substring search (Part 1: customers by part of externalId; wallets by part of address, label or customer ID):
-- FTS5 trigram indexes over columns that are stored in plain text anyway (names are not: they use the blind index).
CREATE VIRTUAL TABLE `customers_search` USING fts5(external_id, content='customers', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `customers_search_insert` AFTER INSERT ON `customers` BEGIN
  INSERT INTO customers_search (rowid, external_id) VALUES (new.rowid, new.external_id);
END;
--> statement-breakpoint
CREATE TRIGGER `customers_search_delete` AFTER DELETE ON `customers` BEGIN
  INSERT INTO customers_search (customers_search, rowid, external_id) VALUES ('delete', old.rowid, old.external_id);
END;
--> statement-breakpoint
CREATE TRIGGER `customers_search_update` AFTER UPDATE OF `external_id` ON `customers` BEGIN
  INSERT INTO customers_search (customers_search, rowid, external_id) VALUES ('delete', old.rowid, old.external_id);
  INSERT INTO customers_search (rowid, external_id) VALUES (new.rowid, new.external_id);
END;
--> statement-breakpoint
INSERT INTO customers_search (customers_search) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `wallets_search` USING fts5(address, label, customer_id, content='wallets', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `wallets_search_insert` AFTER INSERT ON `wallets` BEGIN
  INSERT INTO wallets_search (rowid, address, label, customer_id) VALUES (new.rowid, new.address, new.label, new.customer_id);
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_search_delete` AFTER DELETE ON `wallets` BEGIN
  INSERT INTO wallets_search (wallets_search, rowid, address, label, customer_id) VALUES ('delete', old.rowid, old.address, old.label, old.customer_id);
END;
--> statement-breakpoint
CREATE TRIGGER `wallets_search_update` AFTER UPDATE OF `address`, `label`, `customer_id` ON `wallets` BEGIN
  INSERT INTO wallets_search (wallets_search, rowid, address, label, customer_id) VALUES ('delete', old.rowid, old.address, old.label, old.customer_id);
  INSERT INTO wallets_search (rowid, address, label, customer_id) VALUES (new.rowid, new.address, new.label, new.customer_id);
END;
--> statement-breakpoint
INSERT INTO wallets_search (wallets_search) VALUES ('rebuild');
