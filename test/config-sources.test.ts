// Settings come from the process environment only (docs/operations.md, Configuration): a .env in the working
// directory is not read by the server or the CLI run from the checkout. Bun reads one by default; the checkout's
// bunfig.toml (`env = false`) and the package scripts (`--no-env-file`) turn that off. The single binary's case is in
// test/binary-reports.test.ts (it builds the executable once for all its tests).
import { test, expect, setDefaultTimeout } from "bun:test";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { repoRoot } from "./support/server.ts";
import { cleanEnv, dotenvDir, expectMigrateIgnoredDotenv, expectServeIgnoredDotenv, serveOutput } from "./support/dotenv.ts";

// Child processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir("caravan-dotenv-");
const main = join(repoRoot, "src/main.ts");
const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

async function run(cmd: string[], cwd: string) {
  const proc = Bun.spawn(cmd, { cwd, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A package script's command with the checkout's src/main.ts named by its full path (to run it from another directory). */
const scriptCommand = (name: string) => scripts[name].split(" ").map((w) => (w === "src/main.ts" ? main : w));

test("premise: without the settings below, Bun reads the .env of the working directory (so the other tests can fail)", async () => {
  const d = await dotenvDir(dir, "premise");
  const r = await run(["bun", main, "migrate"], d.cwd);
  expect(r.code).toBe(0);
  expect(await Bun.file(d.dotenvDb).exists()).toBe(true);
});

test("every package script that runs Caravan passes --no-env-file to Bun", () => {
  const running = Object.entries(scripts).filter(([, s]) => s.includes("src/main.ts"));
  expect(running.map(([n]) => n).sort()).toEqual(["console", "demo", "start"]);
  for (const [, s] of running) expect(s).toStartWith("bun --no-env-file src/main.ts ");
});

test("`bun run start`'s command in a directory holding a .env: the server listens where the environment says (not the .env's PORT, HOST, CARAVAN_DB, master key or log level)", async () => {
  const d = await dotenvDir(dir, "start");
  const out = await serveOutput(scriptCommand("start"), d);
  expectServeIgnoredDotenv(out, d);
});

test("the checkout's bunfig.toml (what `bun src/main.ts …` from the repository root reads) turns .env loading off: serve and the CLI ignore it", async () => {
  expect(readFileSync(join(repoRoot, "bunfig.toml"), "utf8")).toMatch(/^env = false$/m);
  const served = await dotenvDir(dir, "bunfig-serve");
  copyFileSync(join(repoRoot, "bunfig.toml"), join(served.cwd, "bunfig.toml"));
  expectServeIgnoredDotenv(await serveOutput(["bun", main, "serve"], served), served);
  const cli = await dotenvDir(dir, "bunfig-cli");
  copyFileSync(join(repoRoot, "bunfig.toml"), join(cli.cwd, "bunfig.toml"));
  expectMigrateIgnoredDotenv(await run(["bun", main, "migrate"], cli.cwd), cli);
});
