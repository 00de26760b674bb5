-- Hand-written: transfer search on PostgreSQL. SQLite searches transfers through an FTS5 trigram index in a file of
-- its own, fed from a queue; here one pg_trgm GIN index over the searched columns (SEARCHED in
-- src/adapters/storage/search-index.ts, in its order, joined by a line feed) serves `... ILIKE '%text%'` on the rows
-- themselves, kept by PostgreSQL with each write: no queue. The expression is repeated to the letter by the
-- repository's search (SEARCH_TEXT in src/adapters/storage/postgres/repos/transfers.ts), which then checks the text
-- column by column (a match across the line feed is no match). gin_pending_list_limit (kB) bounds the list of
-- entries not yet merged into the index, which every search reads through: writes stay batched, searches stay fast
-- between two autovacuums. pg_trgm is a trusted extension (contrib): the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "transfers_search" ON "transfers" USING gin ((coalesce(id, '') || E'\n' || coalesce(external_id, '') || E'\n' || coalesce(originator_vasp_id, '') || E'\n' || coalesce(beneficiary_vasp_id, '') || E'\n' || coalesce(originator_address, '') || E'\n' || coalesce(beneficiary_address, '')) gin_trgm_ops) WITH (gin_pending_list_limit = 128);
