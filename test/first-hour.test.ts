// The errors a newcomer can hit in the first hour, each one clear line with the fix and never a stack trace: help on
// every command, a mistyped option, the console without a key / at a wrong URL / with no server / with a refused key,
// a taken port, a locked database, the master key missing or wrong, a bad sweep schedule. Real processes, real
// loopback sockets, real SQLite files.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { renameSync } from "node:fs";
import { Database } from "bun:sqlite";
import { tempDir } from "./support/tmp.ts";
import { closedLoopbackOrigin, runCli, startServer, type ChildServer } from "./support/server.ts";
import { parseSweepSchedule } from "../src/actors/timers.ts";

// Child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

/** One line on stderr, exit 1, no stack frame, and the line says `what`. */
function oneLine(r: { code: number; stdout: string; stderr: string }, what: RegExp) {
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  expect(lines[0]).toMatch(/^caravan: /);
  expect(lines[0]).toMatch(what);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain("unexpected error");
}

describe("help", () => {
  test("caravan --help lists every command, assets included", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["serve", "demo", "sandbox", "migrate", "backup", "keys", "members", "companies", "assets", "customers", "wallets", "cases", "reports", "console"])
      expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, "m"));
  });

  test("caravan <command> --help prints that command's usage and exits 0 (sandbox, serve, demo, keys)", async () => {
    for (const c of ["sandbox", "serve", "demo", "keys"]) {
      const r = await runCli([c, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toStartWith(`usage: caravan ${c}`);
      expect(r.stderr).toBe("");
    }
  });

  test("a mistyped option is one line naming it and where the options are", async () => {
    oneLine(await runCli(["demo", "--bogus"]), /Unknown option '--bogus'.*caravan demo --help/);
  });
});

describe("console startup", () => {
  let S: ChildServer;
  let key: string;
  const db = join(dir, "console.db");
  beforeAll(async () => {
    expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
    expect((await runCli(["members", "create", "--email", "ana@example.test", "--role", "analyst"], { CARAVAN_DB: db })).code).toBe(0);
    const k = await runCli(["keys", "create", "--env", "test", "--member", "ana@example.test", "--json"], { CARAVAN_DB: db });
    key = JSON.parse(k.stdout.trim().split("\n").at(-1)!).key;
    S = await startServer({ CARAVAN_DB: db });
  });
  afterAll(async () => {
    await S?.stop();
  });
  const noKey = { CARAVAN_API_KEY: "", CARAVAN_URL: "" };

  test("no key: the console signs a member in, after the same checks of the server (it then needs a terminal, which a test has not)", async () => {
    oneLine(await runCli(["console", "--url", S.url], noKey), /needs a terminal/);
    const closed = await closedLoopbackOrigin();
    oneLine(await runCli(["console", "--url", closed], noKey), /cannot reach Caravan at http:\/\/127\.0\.0\.1:\d+.*bun run start/);
  });

  test("server not running: cannot reach it, start it or point --url at it", async () => {
    const closed = await closedLoopbackOrigin();
    oneLine(await runCli(["console", "--url", closed, "--key", key], noKey), /cannot reach Caravan at http:\/\/127\.0\.0\.1:\d+.*bun run start/);
  });

  test("wrong URL: something answers, but not Caravan", async () => {
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html>hello</html>", { status: 404 }) });
    try {
      oneLine(await runCli(["console", "--url", `http://127.0.0.1:${other.port}`, "--key", key], noKey), /does not answer as Caravan.*404/);
    } finally {
      await other.stop(true);
    }
    oneLine(await runCli(["console", "--url", "not a url", "--key", key], noKey), /is not an http\(s\) URL/);
  });

  test("a key the server does not know: refused, with the code and how to make one", async () => {
    const unknown = key.slice(0, -4) + (key.endsWith("0000") ? "1111" : "0000");
    oneLine(await runCli(["console", "--url", S.url, "--key", unknown], noKey), /API key was refused \(KEY_NOT_FOUND\).*keys create/);
    oneLine(await runCli(["console", "--url", S.url, "--key", "not-a-key"], noKey), /API key was refused \(INVALID_FORMAT\)/);
  });

  test("a good key and a running server pass the checks (it then needs a terminal, which a test has not)", async () => {
    oneLine(await runCli(["console", "--url", S.url, "--key", key], noKey), /needs a terminal/);
  });
});

describe("serve", () => {
  test("port taken: says so and how to choose another", async () => {
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    try {
      const r = await runCli(["serve"], { CARAVAN_DB: join(dir, "port.db"), PORT: String(other.port), HOST: "127.0.0.1" });
      oneLine(r, new RegExp(`port ${other.port} on 127\\.0\\.0\\.1 is already in use.*PORT=`));
    } finally {
      await other.stop(true);
    }
  });

  test("master key wrong, or its file gone: refused before anything is read, with the fix", async () => {
    const db = join(dir, "keyed.db");
    const S = await startServer({ CARAVAN_DB: db });
    await S.stop();
    const wrong = "ab".repeat(32);
    oneLine(await runCli(["serve"], { CARAVAN_DB: db, PORT: "0", CARAVAN_MASTER_KEY: wrong }), /master key from CARAVAN_MASTER_KEY is not the key that sealed/);
    renameSync(join(dir, "master.key"), join(dir, "master.key.aside"));
    try {
      oneLine(await runCli(["serve"], { CARAVAN_DB: db, PORT: "0" }), /master key file .*master\.key is missing.*put the original master\.key back/);
    } finally {
      renameSync(join(dir, "master.key.aside"), join(dir, "master.key"));
    }
    // The right key still opens it (and the refused starts made no new key file).
    const again = await startServer({ CARAVAN_DB: db });
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    await again.stop();
  });

  test("a bad CARAVAN_SWEEP_SCHEDULE stops the start with one line naming it", async () => {
    oneLine(await runCli(["serve"], { CARAVAN_DB: join(dir, "sched.db"), PORT: "0", CARAVAN_SWEEP_SCHEDULE: "every minute" }), /CARAVAN_SWEEP_SCHEDULE: the schedule "every minute" is not a croner pattern/);
    oneLine(await runCli(["serve"], { CARAVAN_DB: join(dir, "sched.db"), PORT: "0", CARAVAN_ACTOR_POLL_MS: "0" }), /CARAVAN_ACTOR_POLL_MS/);
  });
});

test("a locked database: the CLI says another process is writing and what to do", async () => {
  const db = join(dir, "locked.db");
  expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const holder = new Database(db);
  holder.exec("BEGIN EXCLUSIVE");
  try {
    const r = await runCli(["members", "create", "--email", "owner@example.test", "--role", "owner"], { CARAVAN_DB: db, CARAVAN_BUSY_TIMEOUT_MS: "50" });
    oneLine(r, /locked/);
  } finally {
    holder.exec("ROLLBACK");
    holder.close();
  }
});

test("CARAVAN_SWEEP_SCHEDULE: one pattern for every sweep, or name=pattern for some; the others keep their own", () => {
  expect(parseSweepSchedule(undefined)).toBeUndefined();
  expect(parseSweepSchedule("  ")).toBeUndefined();
  expect(parseSweepSchedule("* * * * * *")!("provider_a-polling", "0 * * * * *")).toBe("* * * * * *");
  const some = parseSweepSchedule("provider_a-stall=*/2 * * * * *; webhook-recovery=* * * * * *")!;
  expect(some("provider_a-stall", "30 * * * * *")).toBe("*/2 * * * * *");
  expect(some("webhook-recovery", "*/30 * * * * *")).toBe("* * * * * *");
  expect(some("provider_a-polling", "0 * * * * *")).toBe("0 * * * * *");
  expect(() => parseSweepSchedule("x=")).toThrow(/CARAVAN_SWEEP_SCHEDULE/);
  expect(() => parseSweepSchedule("=* * * * * *")).toThrow(/not name=pattern/);
});
