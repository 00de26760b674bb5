// `caravan migrate-to --database-url postgres://…`: copies the SQLite database (CARAVAN_DB) into an empty PostgreSQL
// database, after an online backup of it, checking every table's row count and that sealed values open with the
// master key; a target that is not empty is refused. The steps around it (stop writes, copy, switch
// CARAVAN_DATABASE_URL, start) are in docs/operations.md, "Moving from SQLite to PostgreSQL".
import { parseArgs } from "node:util";
import type { MigrateTo } from "../ports/migrate-to.ts";
import { UsageError } from "./usage.ts";

type Out = (line: string) => void;

const USAGE = "usage: caravan migrate-to --database-url postgres://user@host:port/db [--json]   (copies CARAVAN_DB into that empty database; the password may come from PGPASSWORD)";

export async function runMigrateTo(argv: string[], migrate: MigrateTo, out: Out, env: Record<string, string | undefined> = {}): Promise<void> {
  let values: { "database-url"?: string; json?: boolean };
  try {
    values = parseArgs({ args: argv, options: { "database-url": { type: "string" }, json: { type: "boolean" } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  let url = values["database-url"];
  if (!url || !/^postgres(ql)?:\/\//i.test(url)) throw new UsageError(`--database-url postgres://… is required\n${USAGE}`);
  // A password kept out of the command line (and so out of `ps` and shell history) may come from PGPASSWORD.
  if (env.PGPASSWORD) {
    const u = new URL(url);
    if (u.password === "") {
      u.password = encodeURIComponent(env.PGPASSWORD);
      url = u.toString();
    }
  }
  const r = await migrate({ url });
  if (values.json) {
    out(JSON.stringify(r));
    return;
  }
  const rows = r.tables.reduce((n, t) => n + t.rows, 0);
  out(`caravan: ${r.source} copied to PostgreSQL at ${r.target}: ${r.tables.length} tables, ${rows} rows, every count checked; ${r.sealedChecked} sealed values opened with the master key`);
  out(`caravan: the online backup taken first is ${r.backup}`);
  for (const s of r.skipped) out(`caravan: not copied: ${s.name} (${s.reason})`);
  out("caravan: next: start Caravan with CARAVAN_DATABASE_URL set to that database and the same master key (CARAVAN_MASTER_KEY, or CARAVAN_MASTER_KEY_FILE naming the master.key beside the SQLite database)");
}
