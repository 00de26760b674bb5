// The tests' set-up runs the CLI's storage commands inside the test process (test/support/cli.ts). This proves that
// stand-in answers as the real `caravan` process does: the same exit code, output and one-line refusal, on the same
// database, so a test that makes its keys that way proves what it would with the real program.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { runCli } from "./support/server.ts";
import { runCliInProcess, withMember } from "./support/cli.ts";

// Child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "cli.db");

test("migrate: exit 0 and the same line", async () => {
  const [real, here] = [await runCli(["migrate"], { CARAVAN_DB: db }), await runCliInProcess(["migrate"], { CARAVAN_DB: db })];
  expect(here).toEqual(real);
  expect(here.stdout).toBe(`caravan: migrations applied to ${db}\n`);
});

test("a listing: the same JSON from both", async () => {
  const real = await runCli(["companies", "list", "--json"], { CARAVAN_DB: db });
  const here = await runCliInProcess(["companies", "list", "--json"], { CARAVAN_DB: db });
  expect(real.code).toBe(0);
  expect(here).toEqual(real);
});

test("a key made in the test process is listed by the real CLI", async () => {
  const made = await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "analyst"], { CARAVAN_DB: db })), "--json"], { CARAVAN_DB: db });
  expect(made.code).toBe(0);
  const key = JSON.parse(made.stdout.trim().split("\n").at(-1)!) as { id: string };
  const listed = await runCli(["keys", "list", "--json"], { CARAVAN_DB: db });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(key.id);
});

test("refusals: exit 1, nothing on stdout, the same one line on stderr", async () => {
  for (const args of [
    ["keys", "create", "--env", "staging", "--role", "analyst"],
    ["keys", "create", "--env", "test", "--role", "analyst", "--member", "nobody@example.com"],
    // A key needs a member made on purpose: keys create never makes one.
    ["keys", "create", "--env", "test", "--role", "analyst"],
    ["companies", "profile", "--slug", "nope"],
  ]) {
    const [real, here] = [await runCli(args, { CARAVAN_DB: db }), await runCliInProcess(args, { CARAVAN_DB: db })];
    expect(real.code).toBe(1);
    expect(real.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(here).toEqual(real);
  }
});

test("--help goes to the real program", async () => {
  const here = await runCliInProcess(["keys", "--help"], { CARAVAN_DB: db });
  expect(here.code).toBe(0);
  expect(here.stdout).toContain("usage: caravan keys");
});
