// Crash safety of resolutions: SIGKILL between a resolution and the transfer's move replays the move exactly once,
// and the case history says so once (issue 14, "Bad input and faults").
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const COUNT = 1500;
const child = join(import.meta.dir, "../fixtures/case-crash-child.ts");

function movesSoFar(db: string): number {
  try {
    const d = new Database(db, { readonly: true });
    try {
      return (d.prepare("SELECT count(*) AS n FROM moves").get() as { n: number }).n;
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
}

async function runChild(db: string, killAfterMs: number | null): Promise<void> {
  const proc = Bun.spawn(["bun", child, db, String(COUNT)], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  const until = async (word: string) => {
    while (!out.includes(word)) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
  };
  await until("started");
  if (killAfterMs === null) {
    await until("done");
    expect(await proc.exited).toBe(0);
    return;
  }
  // Kill once moves have begun (resolutions are committed, transfers are moving), a random moment later.
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (!exited && movesSoFar(db) === 0) await Bun.sleep(10);
  await Bun.sleep(killAfterMs);
  proc.kill("SIGKILL");
  await proc.exited;
}

test("resolve under SIGKILL: each held transfer ends resumed or rejected once, each case's history says so once, one report per rejection (with or without a jurisdiction)", async () => {
  const db = join(dir, "case-crash.db");
  const progress: number[] = [];
  for (let i = 0; i < 6; i++) {
    await runChild(db, Math.floor(Math.random() * 60));
    const d = new Database(db, { readonly: true });
    progress.push((d.prepare("SELECT count(*) AS n FROM moves").get() as { n: number }).n);
    d.close();
  }
  await runChild(db, null);
  const d = new Database(db, { readonly: true });
  try {
    // Kills landed part-way: some moves were made before the last restart and some after.
    expect({ progress, partWay: progress.some((n) => n > 0 && n < COUNT) }).toMatchObject({ partWay: true });
    const moves = d.prepare("SELECT transfer_id, count(*) AS n FROM moves GROUP BY transfer_id").all() as { n: number }[];
    expect(moves.length).toBe(COUNT);
    expect(moves.every((m) => m.n === 1)).toBe(true);
    const states = d.prepare("SELECT state, count(*) AS n FROM transfers GROUP BY state ORDER BY state").all();
    expect(states).toEqual([
      { state: "queued", n: COUNT / 2 },
      { state: "rejected", n: COUNT / 2 },
    ]);
    const perCase = d
      .prepare(
        `SELECT c.id, c.resolution,
           (SELECT count(*) FROM case_history h WHERE h.case_id = c.id AND h.action = 'resolved') AS resolved,
           (SELECT count(*) FROM case_history h WHERE h.case_id = c.id AND h.action = 'transfer_updated') AS updated,
           (SELECT count(*) FROM case_history h WHERE h.case_id = c.id AND h.action = 'str_drafted') AS drafted,
           (SELECT count(*) FROM reports r WHERE r.case_id = c.id) AS reports
         FROM cases c`,
      )
      .all() as { resolution: string; resolved: number; updated: number; drafted: number; reports: number }[];
    expect(perCase.length).toBe(COUNT);
    for (const c of perCase) {
      const rejected = c.resolution === "rejected" ? 1 : 0;
      expect({ resolved: c.resolved, updated: c.updated, drafted: c.drafted, reports: c.reports }).toEqual({ resolved: 1, updated: 1, drafted: rejected, reports: rejected });
    }
    // Part 2: a rejection drafts a report whether or not a jurisdiction is known (a quarter here have none: stored empty).
    const byJurisdiction = d.prepare("SELECT jurisdiction, count(*) AS n FROM reports GROUP BY jurisdiction ORDER BY jurisdiction").all();
    expect(byJurisdiction).toEqual([
      { jurisdiction: "", n: COUNT / 4 },
      { jurisdiction: "NL", n: COUNT / 4 },
    ]);
    const numbers = d.prepare("SELECT count(DISTINCT seq) AS n FROM cases").get() as { n: number };
    expect(numbers.n).toBe(COUNT);
  } finally {
    d.close();
  }
});
