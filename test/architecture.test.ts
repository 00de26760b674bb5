// The storage boundary as a check: no SQL outside src/adapters/storage/, and no repository class constructed outside
// it and the composition roots (src/services.ts for the server, src/cli/entry.ts for the CLI commands).
// The sandbox is exempt: its peers stand in for other companies' servers, with stores of their own.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");
const SRC = join(ROOT, "src");

/** Every .ts/.tsx file under `dir`, as a path relative to the repository root ("src/…"). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(e.name)) out.push(relative(ROOT, p));
  }
  return out.sort();
}

const STORAGE = /^src\/adapters\/storage\//;
const SANDBOX = /^src\/sandbox\//;
const COMPOSITION_ROOTS = new Set(["src/services.ts", "src/cli/entry.ts"]);

/** SQL run through a driver or drizzle: a prepared statement, a raw exec/run on the client, a `sql` template. */
const SQL = [/\.stmt\(/, /\.prepare\(/, /\bclient\.exec\(/, /\bclient\.run\(/, /\bsql`/, /\.exec\(\s*["'`]\s*(PRAGMA|SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|VACUUM|BEGIN|COMMIT)\b/i];

/** The classes storage exports that are repositories (error classes are thrown anywhere, so they do not count). */
function repositoryClasses(): string[] {
  const names = new Set<string>();
  for (const f of sourceFiles(join(SRC, "adapters", "storage"))) {
    const text = readFileSync(join(ROOT, f), "utf8");
    for (const m of text.matchAll(/^export class ([A-Z][A-Za-z0-9]*)(\s+extends\s+([A-Za-z.]+))?/gm)) {
      if (/Error$/.test(m[3] ?? "") || /Error$|Conflict$/.test(m[1]!)) continue;
      names.add(m[1]!);
    }
  }
  return [...names].sort();
}

export interface Violation {
  file: string;
  line: number;
  text: string;
}

/** Lines of `text` (a file at `file`) that hold SQL, or construct one of `classes`, where the rules forbid it. */
export function violations(file: string, text: string, classes: readonly string[]): { sql: Violation[]; construction: Violation[] } {
  const sql: Violation[] = [];
  const construction: Violation[] = [];
  if (STORAGE.test(file) || SANDBOX.test(file)) return { sql, construction };
  const construct = new RegExp(`\\bnew (${classes.join("|")})\\(`);
  text.split("\n").forEach((line, i) => {
    const code = line.replace(/^\s*(\/\/|\*).*$/, ""); // comments may name a statement
    if (SQL.some((re) => re.test(code))) sql.push({ file, line: i + 1, text: line.trim() });
    if (!COMPOSITION_ROOTS.has(file) && construct.test(code)) construction.push({ file, line: i + 1, text: line.trim() });
  });
  return { sql, construction };
}


describe("the storage boundary", () => {
  const classes = repositoryClasses();
  const files = sourceFiles(SRC);
  const found = files.map((f) => violations(f, readFileSync(join(ROOT, f), "utf8"), classes));

  test("the repository classes are found (the check below has something to look for)", () => {
    for (const c of ["Transfers", "Customers", "Wallets", "Cases", "Webhooks", "Mailbox", "FxValuations", "ProviderEStore"]) expect(classes).toContain(c);
    expect(classes).not.toContain("StorageError");
  });

  test("no SQL outside src/adapters/storage/ (the sandbox aside)", () => {
    expect(found.flatMap((v) => v.sql)).toEqual([]);
  });

  test("no repository class is constructed outside storage and the composition roots", () => {
    const byFile: Record<string, number> = {};
    for (const v of found.flatMap((f) => f.construction)) byFile[v.file] = (byFile[v.file] ?? 0) + 1;
    expect(byFile).toEqual({});
  });

  test("the check catches a planted violation of each kind, and spares storage, the sandbox and the roots", () => {
    const planted = [
      'const row = storage.stmt("SELECT * FROM transfers WHERE id = ?").get(id);',
      'storage.client.prepare("VACUUM INTO ?").run(path);',
      'this.storage.client.exec("PRAGMA secure_delete = ON");',
      "db.select().from(t).where(sql`id = ${id}`);",
      "const repo = new Transfers(ctx.storage);",
      "ctx.write((s) => new Customers(s).update(id, 1, {}));",
    ].join("\n");
    const v = violations("src/actors/planted.ts", planted, classes);
    expect(v.sql.map((x) => x.line)).toEqual([1, 2, 3, 4]);
    expect(v.construction.map((x) => x.line)).toEqual([5, 6]);
    expect(violations("src/adapters/storage/repos/planted.ts", planted, classes)).toEqual({ sql: [], construction: [] });
    expect(violations("src/sandbox/planted.ts", planted, classes)).toEqual({ sql: [], construction: [] });
    const root = violations("src/services.ts", planted, classes);
    expect(root.construction).toEqual([]);
    expect(root.sql.length).toBe(4); // the composition root builds repositories, it writes no SQL
    // A regex's exec is not SQL.
    expect(violations("src/domain/planted.ts", "const m = DATE.exec(value);\nconst n = /x/.exec(s);", classes).sql).toEqual([]);
  });
});
