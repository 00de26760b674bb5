-- GET /api/v2/transfers `search`: part of transfer ID, external ID, either VASP ID or either address, any case.
CREATE VIRTUAL TABLE `transfers_search` USING fts5(id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address, content='transfers', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `transfers_search_insert` AFTER INSERT ON `transfers` BEGIN
  INSERT INTO transfers_search (rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES (new.rowid, new.id, new.external_id, new.originator_vasp_id, new.beneficiary_vasp_id, new.originator_address, new.beneficiary_address);
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_delete` AFTER DELETE ON `transfers` BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES ('delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address);
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_search_update` AFTER UPDATE OF `external_id`, `originator_vasp_id`, `beneficiary_vasp_id`, `originator_address`, `beneficiary_address` ON `transfers` BEGIN
  INSERT INTO transfers_search (transfers_search, rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES ('delete', old.rowid, old.id, old.external_id, old.originator_vasp_id, old.beneficiary_vasp_id, old.originator_address, old.beneficiary_address);
  INSERT INTO transfers_search (rowid, id, external_id, originator_vasp_id, beneficiary_vasp_id, originator_address, beneficiary_address)
  VALUES (new.rowid, new.id, new.external_id, new.originator_vasp_id, new.beneficiary_vasp_id, new.originator_address, new.beneficiary_address);
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_count_insert` AFTER INSERT ON `transfers` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (new.company_id, new.environment, 'transfers', 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `transfers_count_delete` AFTER DELETE ON `transfers` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (old.company_id, old.environment, 'transfers', -1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
