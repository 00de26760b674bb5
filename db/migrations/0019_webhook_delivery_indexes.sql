CREATE TABLE `transfers_search_pending` (
	`transfer_rowid` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
DROP INDEX `webhook_deliveries_status`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_queue`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_pending`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending_queue` ON `webhook_deliveries` (`webhook_id`,`event_seq`,`id`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_failed` ON `webhook_deliveries` (`webhook_id`,`created_at`,`id`) WHERE status = 'failed';--> statement-breakpoint
-- Issue 19: the transfer search index leaves the request path. A new transfer's rowid goes to transfers_search_pending
-- (one small row); a background sweep (Transfers.indexPending) adds pending transfers to transfers_search and removes
-- them from the queue in one transaction; a search also scans the pending rows directly. Updates and deletes touch
-- the FTS index only for transfers already in it (an FTS5 'delete' of values never indexed would corrupt it).
DROP TRIGGER `transfers_search_insert`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_insert` AFTER INSERT ON `transfers` BEGIN
  INSERT INTO transfers_search_pending (transfer_rowid) VALUES (new.rowid);
END;
--> statement-breakpoint
DROP TRIGGER `transfers_search_delete`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_delete` AFTER DELETE ON `transfers` BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  SELECT 'delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address
  WHERE NOT EXISTS (SELECT 1 FROM transfers_search_pending WHERE transfer_rowid = old.rowid);
  DELETE FROM transfers_search_pending WHERE transfer_rowid = old.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `transfers_search_update`;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_update` AFTER UPDATE OF `external_id`, `originator_vasp_id`, `beneficiary_vasp_id`, `originator_address`, `beneficiary_address` ON `transfers`
WHEN NOT EXISTS (SELECT 1 FROM transfers_search_pending WHERE transfer_rowid = old.rowid) BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES ('delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address);
  INSERT INTO transfers_search (rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES (new.rowid, new.id, new.external_id, new.originator_vasp_id, new.beneficiary_vasp_id, new.originator_address, new.beneficiary_address);
END;
