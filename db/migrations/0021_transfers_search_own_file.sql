-- The transfer search index moves to its own database file (the main file's path + `-search`), written by the
-- storage worker off the request thread (src/adapters/storage/search-index.ts). The main file keeps only the queue:
-- every insert, delete, or change of a searched column appends the transfer's rowid, numbered by `seq`, so a change
-- after the worker read a transfer is indexed again. The search file is filled from the queue; a new (or stale) one
-- re-queues every transfer when the database is opened, and until indexed a search scans the queued ones: no miss.
DROP TRIGGER `transfers_search_insert`;
--> statement-breakpoint
DROP TRIGGER `transfers_search_delete`;
--> statement-breakpoint
DROP TRIGGER `transfers_search_update`;
--> statement-breakpoint
DROP TABLE `transfers_search`;
--> statement-breakpoint
DROP TABLE `transfers_search_pending`;
--> statement-breakpoint
CREATE TABLE `transfers_search_pending` (
	`seq` integer PRIMARY KEY,
	`transfer_rowid` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `transfers_search_insert` AFTER INSERT ON `transfers` BEGIN
  INSERT INTO transfers_search_pending (transfer_rowid) VALUES (new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_update` AFTER UPDATE OF `external_id`, `originator_vasp_id`, `beneficiary_vasp_id`, `originator_address`, `beneficiary_address` ON `transfers` BEGIN
  INSERT INTO transfers_search_pending (transfer_rowid) VALUES (new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_delete` AFTER DELETE ON `transfers` BEGIN
  INSERT INTO transfers_search_pending (transfer_rowid) VALUES (old.rowid);
END;
