// Crash safety: SIGKILL at random moments loses no acknowledged work and applies no message twice.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
// Large enough that the stream takes well over the first kill's 40–290 ms even on a fast machine, so kills land
// part-way through (asserted below).
const ACTORS = 40;
const PER_ACTOR = 600;
const child = join(import.meta.dir, "../fixtures/crash-child.ts");

async function runChild(db: string, killAfterMs: number | null): Promise<"killed" | "done"> {
  const proc = Bun.spawn(["bun", child, db, String(ACTORS), String(PER_ACTOR)], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("started")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  if (killAfterMs === null) {
    while (!out.includes("done")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(await proc.exited).toBe(0);
    return "done";
  }
  await Bun.sleep(killAfterMs);
  proc.kill("SIGKILL");
  await proc.exited;
  return "killed";
}

test("after SIGKILL at random moments and restarts, every message is applied exactly once and in order", async () => {
  const db = join(dir, "crash.db");
  const progress: number[] = [];
  for (let i = 0; i < 6; i++) {
    await runChild(db, 40 + Math.floor(Math.random() * 250));
    const d = new Database(db, { readonly: true });
    progress.push((d.prepare("SELECT count(*) AS n FROM applied").get() as { n: number }).n);
    d.close();
  }
  await runChild(db, null);

  const d = new Database(db, { readonly: true });
  const counts = d
    .prepare("SELECT actor, n, count(*) AS c FROM applied GROUP BY actor, n HAVING c <> 1")
    .all();
  expect(counts).toEqual([]); // nothing applied twice
  const perActor = d.prepare("SELECT actor, count(*) AS c, max(n) AS m FROM applied GROUP BY actor").all() as {
    actor: string;
    c: number;
    m: number;
  }[];
  const accounts = perActor.filter((r) => r.actor.startsWith("acc:"));
  const ledgers = perActor.filter((r) => r.actor.startsWith("ledger:"));
  expect(accounts.length).toBe(40);
  expect(ledgers.length).toBe(40);
  for (const r of accounts) expect([r.c, r.m]).toEqual([PER_ACTOR, PER_ACTOR]); // nothing lost
  for (const r of ledgers) expect([r.c, r.m]).toEqual([PER_ACTOR / 5, PER_ACTOR / 5]); // outbox messages delivered once each
  expect(d.prepare("SELECT count(*) AS n FROM actor_dead_letters").get()).toEqual({ n: 0 });
  expect(d.prepare("SELECT count(*) AS n FROM actor_messages").get()).toEqual({ n: 0 });
  d.close();
  // The kills really interrupted work in progress: some runs stopped part-way.
  expect(progress.some((p) => p > 0 && p < ACTORS * PER_ACTOR * 1.2)).toBe(true);
}, 120_000);
