-- Case list totals kept by triggers (as migration 0004 does for customers and wallets): unfiltered and
-- open-only lists answer meta.total without counting rows, whoever writes (the case actors, the CLI).
CREATE TRIGGER `cases_count_insert` AFTER INSERT ON `cases` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (new.company_id, new.environment, 'cases', 1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT new.company_id, new.environment, 'cases:open', 1 WHERE new.status = 'open'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `cases_count_status` AFTER UPDATE OF `status` ON `cases`
WHEN (old.status = 'open') <> (new.status = 'open') BEGIN
  INSERT INTO list_counts (company_id, environment, list, n)
    VALUES (new.company_id, new.environment, 'cases:open', CASE WHEN new.status = 'open' THEN 1 ELSE -1 END)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `cases_count_delete` AFTER DELETE ON `cases` BEGIN
  INSERT INTO list_counts (company_id, environment, list, n) VALUES (old.company_id, old.environment, 'cases', -1)
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (company_id, environment, list, n) SELECT old.company_id, old.environment, 'cases:open', -1 WHERE old.status = 'open'
    ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
