// `caravan backup --to <file>`: a consistent online copy of the live database, safe while the server runs.
//
// The copy is the database as of the moment it began, taken while the writers keep committing. It is written beside
// the target under a temporary name, checked, flushed to disk, then renamed into place, so `<file>` either does not
// exist or is a complete, checked backup. The copy is one self-contained file. Making and checking it is the engine's
// (the CLI's entry, src/cli/entry.ts, hands this command the configured database's backup); this file reads the
// options and prints the result.
import { parseArgs } from "node:util";
import type { Backup } from "../ports/backup.ts";
import { UsageError } from "./usage.ts";

type Out = (line: string) => void;

const USAGE = "usage: caravan backup --to <file> [--json]   (the database is CARAVAN_DB; the copy must not exist yet)";

export async function runBackup(argv: string[], backup: Backup, out: Out): Promise<void> {
  let values: { to?: string; json?: boolean };
  try {
    values = parseArgs({ args: argv, options: { to: { type: "string" }, json: { type: "boolean" } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`);
  }
  if (!values.to) throw new UsageError(`--to <file> is required\n${USAGE}`);
  const r = await backup({ to: values.to });
  if (values.json) out(JSON.stringify(r));
  else out(`caravan: backup of ${r.database} written to ${r.file} (${r.bytes} bytes, ${r.migrations} migrations, integrity ok, as of ${r.startedAt})`);
}
