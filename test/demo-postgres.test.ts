// `caravan demo --database-url postgres://…`: the same demo on a fresh database of the test cluster. One round ends
// with the summary the SQLite run gives; the rows are in PostgreSQL (no SQLite file made); the banner names the
// database without its password and its printed commands work as printed (the URL read from a private file beside
// the keys); a database filled by another run's keys is refused in one line that says what to do.
import { test, expect, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import postgres from "postgres";
import { runDemo } from "../src/demo.ts";
import { startPostgres } from "./support/postgres.ts";

// Servers, a PostgreSQL cluster and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(180_000);

const root = join(import.meta.dir, "..");

/** One statement on `url`, from a connection of the test's own. */
async function rows(url: string, text: string): Promise<Record<string, unknown>[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return [...(await sql.unsafe(text))];
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The environment of a child process with neither engine setting inherited: the printed command must carry them. */
function bareEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "CARAVAN_DB" && k !== "CARAVAN_DATABASE_URL") env[k] = v;
  return env;
}

test("demo on PostgreSQL: one round gives the SQLite run's summary, its rows are in PostgreSQL, its printed commands work and never show the password", async () => {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  const lines: string[] = [];
  const demo = await runDemo({ port: 0, databaseUrl: url, count: 1, intervalMs: 100, giveUpMs: 60_000, log: (l) => lines.push(l) });
  try {
    const summary = await demo.done;
    const text = lines.join("\n");
    const where = `PostgreSQL at ${pg.host}:${pg.port}${new URL(url).pathname}`;
    const keyDir = dirname(demo.dbPath);

    // The run itself: the same outcomes as on SQLite (test/demo.test.ts), one report, the information request's case open.
    expect(summary?.byState).toEqual({ completed: 11, accepted: 1, rejected: 3, failed: 1 });
    expect(summary?.transfers).toBe(16);
    expect(summary?.reports.length).toBe(1);
    expect(summary?.openCases.map((c) => c.type)).toEqual(["compliance_review"]);
    expect(summary?.where).toBe(where);
    expect(text).toMatch(/→ completed \(transaction reported to provider_b\)/);
    expect(text).toMatch(/case CASE-\S+ → closed \(approved; transfer action: queued\)/);
    expect(text).toMatch(/^report \S+ drafted for trf_\S+ \(draft, NL, due \S+\)/m);
    expect(text).toMatch(/incoming trf_\S+ \(provider_d\) → completed/);
    expect(lines.filter((l) => / failed: /.test(l))).toEqual([]);

    // The rows are in PostgreSQL, and no SQLite database was made beside the keys.
    const byState = Object.fromEntries((await rows(url, "SELECT state, count(*)::int AS n FROM transfers GROUP BY state")).map((r) => [r.state, r.n]));
    expect(byState).toEqual(summary!.byState);
    expect((await rows(url, "SELECT report_number FROM reports")).map((r) => r.report_number)).toEqual(summary!.reports);
    expect((await rows(url, "SELECT case_number FROM cases WHERE status = 'open'")).map((r) => r.case_number)).toEqual(summary!.openCases.map((c) => c.caseNumber));
    expect((await rows(url, "SELECT count(*)::int AS n FROM customers"))[0].n).toBe(2);
    expect((await rows(url, "SELECT count(*)::int AS n FROM wallet_proofs WHERE type = 'attestation'"))[0].n).toBe(2);
    expect(existsSync(demo.dbPath)).toBe(false);
    expect(existsSync(join(keyDir, "master.key"))).toBe(true);

    // The banner and the summary name the database, never its password; the URL is in a private file beside the keys.
    expect(text).not.toContain(pg.password);
    expect(text).toContain(`  database      ${where} (personal data sealed with the master key in ${join(keyDir, "master.key")}; its URL for the commands below in ${demo.envFile})`);
    expect(demo.envFile).toBe(join(keyDir, "demo.env"));
    expect(statSync(demo.envFile!).mode & 0o777).toBe(0o600);
    expect(readFileSync(demo.envFile!, "utf8")).toBe(`CARAVAN_DATABASE_URL=${url}\nCARAVAN_DB=${demo.dbPath}\n`);
    expect(text).toContain(`Data left behind: ${where} (keys in a fresh directory for this run: master key in ${join(keyDir, "master.key")}, the URL in ${demo.envFile})`);
    expect(text).toContain(`  serve it again:  bun --env-file=${demo.envFile} src/main.ts serve`);
    expect(text).toContain(`  remove it:       rm -r ${keyDir}   (then drop the PostgreSQL database, or empty it, before another demo on it)`);

    // The analyst key command works as printed, beside the running demo, with nothing of the engine in the environment.
    const printed = /  analyst key   bun --env-file=(\S+) src\/main\.ts keys create --env test --member (analyst-\S+@demo\.local)   /.exec(text);
    expect(printed?.[1]).toBe(demo.envFile!);
    // Spawned without blocking: the demo's node runs in this process and handles the command (the CLI asks it).
    const proc = Bun.spawn(["bun", `--env-file=${printed![1]}`, "src/main.ts", "keys", "create", "--env", "test", "--member", printed![2]], { cwd: root, env: bareEnv(), stdout: "pipe", stderr: "pipe" });
    const [out, err, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(exitCode).toBe(0);
    const analystKey = out.trim().split("\n").at(-1)!;
    expect(analystKey).toMatch(/^crv_test_/);
    const me = await fetch(`${demo.service.url}/api/v2/me`, { headers: { "x-api-key": analystKey } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { member: { role: string } } }).data.member.role).toBe("analyst");
  } finally {
    await demo.stop();
  }

  // Another demo on the same database with fresh keys cannot read it: refused at the start, saying what to do.
  const again = await runDemo({ port: 0, databaseUrl: url, count: 1, log: () => {} }).then(
    () => null,
    (e: Error) => e.message,
  );
  expect(again).toContain("give it an empty database, or CARAVAN_DB=<the earlier run's demo.db> to reuse that run's keys");
  expect(again).not.toContain(pg.password);
});

test("demo: --database-url takes a postgres:// URL only, refused in one line", () => {
  const r = Bun.spawnSync(["bun", "src/main.ts", "demo", "--database-url", "mysql://demo@127.0.0.1/demo"], { cwd: root, env: { ...process.env, PORT: "0" } });
  expect(r.stderr.toString().trim()).toBe("caravan: --database-url must be a postgres:// (or postgresql://) URL of an empty database");
  expect(r.exitCode).toBe(1);
});
