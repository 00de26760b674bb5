// `bun scripts/pg-snapshot.ts`: rewrites the newest db/migrations-pg snapshot from db/schema-pg (keeping its id and
// prevId), for hand-written PostgreSQL migrations: the newest snapshot must describe the whole schema.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const root = join(import.meta.dir, "..");
const { generateDrizzleJson } = await import("drizzle-kit/api");
const pgSchema = await import(join(root, "db/schema-pg/index.ts"));
const journal = JSON.parse(readFileSync(join(root, "db/migrations-pg/meta/_journal.json"), "utf8"));
const last = journal.entries.at(-1).tag.slice(0, 4);
const path = join(root, `db/migrations-pg/meta/${last}_snapshot.json`);
const old = JSON.parse(readFileSync(path, "utf8"));
const next = generateDrizzleJson(pgSchema as Record<string, unknown>, old.prevId);
next.id = old.id;
next.prevId = old.prevId;
writeFileSync(path, JSON.stringify(next, null, 2) + "\n");
console.log("rewrote", path);
