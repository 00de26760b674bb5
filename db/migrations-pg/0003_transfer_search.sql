-- Hand-written: transfer search on PostgreSQL. SQLite searches transfers through an FTS5 trigram index in a file of
-- its own, fed from a queue; here pg_trgm GIN indexes on the searched columns (the list in
-- src/adapters/storage/search-index.ts, SEARCHED) serve `column ILIKE '%text%'` directly on the rows, kept by
-- PostgreSQL in the transaction that writes the row. pg_trgm is a trusted extension (contrib): the database's owner
-- may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "transfers_search_id" ON "transfers" USING gin ("id" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "transfers_search_external_id" ON "transfers" USING gin ("external_id" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "transfers_search_originator_vasp_id" ON "transfers" USING gin ("originator_vasp_id" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "transfers_search_beneficiary_vasp_id" ON "transfers" USING gin ("beneficiary_vasp_id" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "transfers_search_originator_address" ON "transfers" USING gin ("originator_address" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "transfers_search_beneficiary_address" ON "transfers" USING gin ("beneficiary_address" gin_trgm_ops);
