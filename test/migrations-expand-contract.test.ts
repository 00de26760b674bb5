// Expand, then contract (docs/operations.md#upgrading-several-nodes): during a rolling upgrade nodes of two consecutive
// versions share one database, so a migration must keep the previous version working. It may add tables, add columns
// that are nullable or have a default, add indexes; it may not drop or rename a table or column, change a column's
// type, make a column NOT NULL, or add a NOT NULL column without a default, unless the statement carries the marker
//   -- contract: <what> unread since <release>
// naming the release that stopped reading (or writing) it, older than the one the migration ships in (package.json's
// version): then no node of the previous release touches it any more. Every file of db/migrations-pg and db/migrations
// is checked; the ones written before the rule are grandfathered by name (and only those statements of theirs).
import { test, expect } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };

const root = join(import.meta.dir, "..");
const FOLDERS = ["db/migrations-pg", "db/migrations"];

/** Written before the rule; each drops, renames or retypes what the release before it no longer read. */
const GRANDFATHERED = new Set([
  "db/migrations/0015_transfer_search_detail_none.sql", // the FTS5 index rebuilt with detail=none (a virtual table only the search reads)
  "db/migrations/0020_fx_valuations_without_rowid.sql", // the valuations table rebuilt WITHOUT ROWID (SQLite's rebuild: drop, rename)
  "db/migrations/0021_transfers_search_own_file.sql", // the search index moved to its own file
  "db/migrations-pg/0007_event_data_bytes.sql", // events.data text → bytea, before any release ran on PostgreSQL
]);

/** The operations that break a node of the previous version still reading the schema. */
const CONTRACTING: { name: string; re: RegExp }[] = [
  // `DROP COLUMN x`, or `DROP x` (COLUMN is optional in both dialects); dropping a constraint or NOT NULL relaxes.
  { name: "DROP COLUMN", re: /\bDROP\s+COLUMN\b|\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?\S+\s+DROP\s+(?!CONSTRAINT\b|NOT\s+NULL\b|COLUMN\b)/i },
  // The previous version's inserts that leave the column out relied on its default.
  { name: "DROP DEFAULT", re: /\bDROP\s+DEFAULT\b/i },
  { name: "DROP TABLE", re: /\bDROP\s+TABLE\b/i },
  { name: "RENAME", re: /\bRENAME\b/i },
  { name: "ALTER … TYPE", re: /\bALTER\s+(COLUMN\s+)?\S+\s+(SET\s+DATA\s+)?TYPE\b/i },
  { name: "SET NOT NULL", re: /\bSET\s+NOT\s+NULL\b/i },
  // A new NOT NULL column without a default: the previous version's inserts (which do not name it) would fail.
  { name: "ADD … NOT NULL without DEFAULT", re: /\bADD\s+(COLUMN\s+)?(?:(?!\bDEFAULT\b)[^;])*?\bNOT\s+NULL\b(?![^;]*\bDEFAULT\b)/i },
];

const MARKER = /--\s*contract:.*\bunread since (\d+)\.(\d+)\.(\d+)\b/i;

function older(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/**
 * The contracting statements of one migration's text that carry no valid marker: `[operation, first line]` each. A
 * statement is the text between `--> statement-breakpoint`s (and `;`s); its comments are read for the marker and left
 * out when looking for operations.
 */
export function unmarkedContractions(text: string, version: string): string[][] {
  const current = version.split(".").map(Number);
  const out: string[][] = [];
  for (const chunk of text.split("--> statement-breakpoint")) {
    let comments = "";
    for (const stmt of chunk.split(/;\s*(?:\n|$)/)) {
      const lines = stmt.split("\n");
      comments += lines.filter((l) => l.trim().startsWith("--")).join("\n") + "\n";
      const code = lines
        .filter((l) => !l.trim().startsWith("--"))
        .join("\n")
        .trim();
      if (code === "") continue;
      const marker = MARKER.exec(comments);
      const marked = marker !== null && older([Number(marker[1]), Number(marker[2]), Number(marker[3])], current);
      for (const op of CONTRACTING) if (op.re.test(code) && !marked) out.push([op.name, code.split("\n")[0]!.slice(0, 120)]);
      comments = "";
    }
  }
  return out;
}

test("no migration drops, renames or retypes what the previous release reads, or adds a NOT NULL column without a default, unmarked", () => {
  const bad: string[] = [];
  const seen = new Set<string>();
  for (const folder of FOLDERS) {
    for (const file of readdirSync(join(root, folder)).filter((f) => f.endsWith(".sql")).sort()) {
      const path = `${folder}/${file}`;
      seen.add(path);
      if (GRANDFATHERED.has(path)) continue;
      for (const [op, line] of unmarkedContractions(readFileSync(join(root, path), "utf8"), pkg.version)) bad.push(`${path}: ${op}: ${line}`);
    }
  }
  expect(bad).toEqual([]);
  // The list names files that exist (a rename of a grandfathered file would otherwise drop its exemption silently).
  expect([...GRANDFATHERED].filter((p) => !seen.has(p))).toEqual([]);
});

test("the grandfathered files are the ones that contract: each still fails the rule on its own", () => {
  for (const path of GRANDFATHERED) expect(unmarkedContractions(readFileSync(join(root, path), "utf8"), pkg.version).length).toBeGreaterThan(0);
});

test("the checker refuses each contracting operation and accepts expansions and marked contractions", () => {
  const refused = [
    'ALTER TABLE "transfers" DROP COLUMN "memo";',
    "ALTER TABLE `transfers` DROP `memo`;\n--> statement-breakpoint\nDROP TABLE `old_things`;",
    'ALTER TABLE "transfers" RENAME COLUMN "memo" TO "note";',
    'ALTER TABLE "things" RENAME TO "stuff";',
    'ALTER TABLE "events" ALTER COLUMN "data" TYPE bytea;',
    'ALTER TABLE "events" ALTER COLUMN "data" SET DATA TYPE bytea;',
    'ALTER TABLE "transfers" ALTER COLUMN "memo" SET NOT NULL;',
    'ALTER TABLE "transfers" ADD COLUMN "tier" text NOT NULL;',
    "ALTER TABLE `transfers` ADD `tier` integer NOT NULL;",
    // A marker naming the release this migration ships in (the previous release still reads it) does not count.
    '-- contract: transfers.memo unread since 0.2.0\nALTER TABLE "transfers" DROP COLUMN "memo";',
    'ALTER TABLE "transfers" ALTER COLUMN "tier" DROP DEFAULT;',
    'ALTER TABLE IF EXISTS "transfers" DROP "memo";',
    // A marker on another statement does not cover this one.
    '-- contract: a unread since 0.0.1\nALTER TABLE "a" DROP COLUMN "x";\nALTER TABLE "b" DROP COLUMN "y";',
  ];
  const dropTable = "ALTER TABLE `transfers` DROP `memo`;\n--> statement-breakpoint\nDROP TABLE `old_things`;";
  for (const sql of refused) expect({ sql, found: unmarkedContractions(sql, "0.2.0").length > 0 }).toEqual({ sql, found: true });
  expect(unmarkedContractions(dropTable, "0.2.0").map((f) => f[0])).toEqual(["DROP COLUMN", "DROP TABLE"]);
  expect(unmarkedContractions('-- contract: a unread since 0.0.1\nALTER TABLE "a" DROP COLUMN "x";\nALTER TABLE "b" DROP COLUMN "y";', "0.2.0")).toEqual([
    ["DROP COLUMN", 'ALTER TABLE "b" DROP COLUMN "y"'],
  ]);

  const accepted = [
    'CREATE TABLE "things" ("id" text PRIMARY KEY NOT NULL, "n" integer NOT NULL);',
    'ALTER TABLE "transfers" ADD COLUMN "tier" text;',
    'ALTER TABLE "transfers" ADD COLUMN "tier" text DEFAULT \'basic\' NOT NULL;',
    "ALTER TABLE `transfers` ADD `tier` integer NOT NULL DEFAULT 0;",
    'CREATE INDEX "transfers_tier" ON "transfers" ("tier");',
    'ALTER TABLE "transfers" ALTER COLUMN "memo" DROP NOT NULL;',
    'ALTER TABLE "transfers" DROP CONSTRAINT "transfers_memo_check";',
    "-- the old table is dropped in a later release (DROP TABLE in a comment is not a statement)\nCREATE TABLE `x` (`id` text);",
    '-- contract: transfers.memo unread since 0.1.0\nALTER TABLE "transfers" DROP COLUMN "memo";',
    '--> statement-breakpoint\n-- contract: "old_things" unread since 0.1.3\nDROP TABLE "old_things";',
  ];
  for (const sql of accepted) expect({ sql, found: unmarkedContractions(sql, "0.2.0") }).toEqual({ sql, found: [] });
});
