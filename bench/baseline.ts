// The SQLite baseline every benchmark prints its ratios against: single-row commits/s, the service's driver and pragmas.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openStorage } from "../src/adapters/storage/index.ts";

/** Commits one row per transaction (WAL, synchronous=NORMAL, busy_timeout, foreign keys) for `seconds` or `maxRows`. */
export async function rawCommitRate(dir: string, o: { seconds?: number; maxRows?: number } = {}): Promise<number> {
  const s = await openStorage(join(dir, "raw.db"), { migrate: false });
  s.client.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, actor TEXT NOT NULL, body TEXT NOT NULL)");
  const ins = s.client.prepare("INSERT INTO t (actor, body) VALUES (?, ?)");
  const begin = s.client.prepare("BEGIN IMMEDIATE");
  const commit = s.client.prepare("COMMIT");
  const maxRows = o.maxRows ?? Number.POSITIVE_INFINITY;
  const t0 = performance.now();
  const end = t0 + (o.seconds ?? 3) * 1000;
  let n = 0;
  while (performance.now() < end && n < maxRows) {
    for (let i = 0; i < 100 && n < maxRows; i++) {
      begin.run();
      ins.run(`a:${n % 1000}`, '{"n":1}');
      commit.run();
      n++;
    }
  }
  const rate = n / ((performance.now() - t0) / 1000);
  s.close();
  return rate;
}

/**
 * CPU time of the calling (main) thread in ms, from /proc (Linux; NaN elsewhere): unlike answers/s it hardly moves
 * when other processes compete for the cores, so it is the figure to compare levers by.
 */
export function threadCpuMs(): number {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
  } catch {
    return NaN;
  }
}
