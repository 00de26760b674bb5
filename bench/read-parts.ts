// Where a detail read's time goes, without sockets: GET /api/v2/transfers/:id through the application's own fetch,
// one at a time, against the same application answering a bare route; CPU per answer (µs, process.cpuUsage).
// BENCH_READS (20000) per measurement, BENCH_ROUNDS (3). Used for docs/performance.md (read side).
// BENCH_AB_TREE=<another checkout of this repository>: its application (its own copy of every src module) answers from
// the same services and database, and the rounds alternate between the two: an A/B of a change within one process,
// the steadiest comparison on a loaded machine (medians printed).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/http/app.ts";
import { benchService, belowThresholdBody, ownerKey } from "./setup.ts";

const N = Number(process.env.BENCH_READS ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "caravan-bench-read-parts-"));
const svc = await benchService(join(dir, "r.db"));
try {
  const key = await ownerKey(svc);
  const json = { "x-api-key": key, "content-type": "application/json" };
  const cust = (await (await fetch(`${svc.url}/api/v2/customers`, { method: "POST", headers: json, body: JSON.stringify({ name: "Jane Doe" }) })).json()) as { data: { id: string } };
  const body = belowThresholdBody(cust.data.id);
  const ids: string[] = [];
  for (let i = 0; i < 500; i++) {
    const r = (await (await fetch(`${svc.url}/api/v2/transfers`, { method: "POST", headers: { ...json, "idempotency-key": `k${i}` }, body })).json()) as { data: { id: string } };
    ids.push(r.data.id);
  }
  const app = createApp(svc).get("/bare", () => Response.json({ data: { id: "trf_bare", state: "completed" }, meta: {} }));
  const other = process.env.BENCH_AB_TREE ? ((await import(join(process.env.BENCH_AB_TREE, "src/http/app.ts"))) as { createApp: typeof createApp }).createApp(svc) : undefined;
  const reqs = ids.map((id) => new Request(`http://127.0.0.1/api/v2/transfers/${id}`, { headers: { "x-api-key": key } }));
  const bareReq = new Request("http://127.0.0.1/bare", { headers: { "x-api-key": key } });
  const time = async (a: { fetch(r: Request): Response | Promise<Response> }, make: (i: number) => Request) => {
    // process.cpuUsage counts in µs (the thread's /proc figure in 10 ms ticks); nothing else in the process is busy here.
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const res = await a.fetch(make(i));
      if (res.status !== 200) throw new Error(`answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    const c = process.cpuUsage(c0);
    return { wallUs: ((performance.now() - t0) * 1000) / N, cpuUs: (c.user + c.system) / N };
  };
  const detail = (i: number) => reqs[i % reqs.length].clone();
  const bare = () => bareReq.clone();
  await time(app, detail);
  await time(app, bare);
  if (other) await time(other, detail);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const b = await time(app, bare);
    const d = await time(app, detail);
    mine.push(d.cpuUs);
    let line = `round ${r + 1}: detail ${d.wallUs.toFixed(1)} µs wall, ${d.cpuUs.toFixed(1)} µs CPU; bare route in the same app ${b.wallUs.toFixed(1)} / ${b.cpuUs.toFixed(1)} µs`;
    if (other) {
      const o = await time(other, detail);
      theirs.push(o.cpuUs);
      line += `; BENCH_AB_TREE detail ${o.wallUs.toFixed(1)} / ${o.cpuUs.toFixed(1)} µs`;
    }
    console.log(line);
  }
  console.log(`median CPU per detail read: this tree ${median(mine).toFixed(1)} µs${other ? `, BENCH_AB_TREE ${median(theirs).toFixed(1)} µs` : ""}`);
  if (other) {
    const diffs = mine.map((m, i) => m - theirs[i]);
    const better = diffs.filter((d) => d < 0).length;
    console.log(`paired rounds (this tree − BENCH_AB_TREE): median ${median(diffs).toFixed(1)} µs; this tree cheaper in ${better} of ${diffs.length} rounds`);
  }
} finally {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
