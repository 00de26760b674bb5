-- events.data holds either the JSON text or its compact form (a marker byte, then deflate-raw: src/adapters/storage/
-- event-data.ts), as SQLite's untyped column does. PostgreSQL's text cannot hold the compact bytes (a NUL, invalid
-- UTF-8), so the column is bytea: the JSON text is stored as its UTF-8 bytes, the compact form as it is; JSON text never
-- starts with the marker byte, so a reader tells them apart by the first byte.
ALTER TABLE "events" ALTER COLUMN "data" TYPE bytea USING convert_to("data", 'UTF8');
