// A working directory whose .env would reconfigure Caravan if it were read (another port, another database, another
// master key), and the checks that it was not: what the server and the CLI did is what the process environment
// (without those variables) says. Shared by the source test (test/config-sources.test.ts) and the binary's
// (test/binary-reports.test.ts).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "bun:test";

/** The variables the .env would set; the child's environment is given none of them. */
export const DOTENV_VARS = ["PORT", "HOST", "CARAVAN_DB", "CARAVAN_MASTER_KEY", "CARAVAN_MASTER_KEY_FILE", "CARAVAN_LOG"] as const;

export interface DotenvDir {
  /** The working directory holding `.env` (and `.env.local`, `.env.production`). */
  cwd: string;
  /** The port the .env names (bound and released: nothing of ours listens there). */
  port: number;
  /** The database the .env names. */
  dotenvDb: string;
  /** The address the child listens on from its real environment; the port is left to the default. */
  host: string;
}

/** A free loopback port (bound, then released). */
export async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = s.port as number;
  await s.stop(true);
  return port;
}

export async function dotenvDir(parent: string, name: string): Promise<DotenvDir> {
  const cwd = join(parent, name);
  mkdirSync(cwd, { recursive: true });
  const port = await freePort();
  const dotenvDb = join(parent, `${name}-from-dotenv`, "caravan.db");
  const lines = [
    `PORT=${port}`,
    `HOST=127.0.0.1`,
    `CARAVAN_DB=${dotenvDb}`,
    `CARAVAN_MASTER_KEY=${"ab".repeat(32)}`,
    `CARAVAN_MASTER_KEY_FILE=${join(parent, `${name}-from-dotenv`, "master.key")}`,
    `CARAVAN_LOG=debug`,
  ];
  // Every file Bun's loader would look at by default.
  for (const f of [".env", ".env.local", ".env.production", ".env.development"]) writeFileSync(join(cwd, f), lines.join("\n") + "\n");
  // A loopback address of its own, so that the default port (8080) it falls back to is free here however busy the
  // machine's 127.0.0.1 is (Linux routes all of 127.0.0.0/8 to loopback).
  const host = `127.0.0.${2 + (port % 250)}`;
  return { cwd, port, dotenvDb, host };
}

/** The parent environment without the variables the .env sets, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !(DOTENV_VARS as readonly string[]).includes(k)) env[k] = v;
  return { ...env, CARAVAN_LOG: "warn", ...extra };
}

/**
 * Starts `cmd` (a `serve`) in `d.cwd` with HOST from the real environment and no PORT, until it says where it listens
 * or that the default port is taken; then stops it. Returns what it printed.
 */
export async function serveOutput(cmd: string[], d: DotenvDir): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd: d.cwd, env: cleanEnv({ HOST: d.host }), stdout: "pipe", stderr: "pipe" });
  let out = "";
  const collect = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s) out += new TextDecoder().decode(c);
  };
  const done = Promise.all([collect(proc.stdout as ReadableStream<Uint8Array>), collect(proc.stderr as ReadableStream<Uint8Array>)]);
  // A hang guard only: the test's timeout ends a server that never says either.
  while (!/listening on |already in use|cannot listen/.test(out) && proc.exitCode === null) await Bun.sleep(20);
  proc.kill("SIGTERM");
  await proc.exited;
  await done;
  return out;
}

/** What a `serve` in `d` printed shows the .env was not read: the default port on the real HOST, the default database. */
export function expectServeIgnoredDotenv(out: string, d: DotenvDir): void {
  const db = join(d.cwd, "data", "caravan.db");
  // Listening on the default port, or told that it is taken: either way not the .env's port and not its database.
  expect(out).toMatch(new RegExp(`listening on http://${d.host.replaceAll(".", "\\.")}:8080 \\(database \\./data/caravan\\.db\\)|port 8080 on ${d.host.replaceAll(".", "\\.")} is already in use`));
  expect(out).not.toContain(`:${d.port}`);
  expect(out).not.toContain(`port ${d.port}`);
  expect(out).not.toContain(d.dotenvDb);
  // CARAVAN_LOG=debug was not taken either: nothing below warn was logged.
  expect(out).not.toContain('"level":"debug"');
  expect(out).not.toContain('"level":"info"');
  expect(existsSync(d.dotenvDb)).toBe(false);
  if (out.includes("listening on")) {
    // The default database in the working directory, with the master key file beside it (the .env's key was not used).
    expect(existsSync(db)).toBe(true);
    expect(existsSync(join(d.cwd, "data", "master.key"))).toBe(true);
  }
}

/** A `migrate` in `d.cwd` without CARAVAN_DB in the environment: it migrated ./data/caravan.db, not the .env's database. */
export function expectMigrateIgnoredDotenv(r: { code: number | null; stdout: string; stderr: string }, d: DotenvDir): void {
  expect(r.code).toBe(0);
  expect(existsSync(join(d.cwd, "data", "caravan.db"))).toBe(true);
  expect(existsSync(d.dotenvDb)).toBe(false);
  expect(r.stdout + r.stderr).not.toContain(d.dotenvDb);
}
