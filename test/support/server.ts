// Starts the real server as a child process on a free loopback port (PORT=0) and finds its URL.
import { join } from "node:path";
import { withTestEngine } from "./test-engine.ts";

/**
 * The fast cadence every test server runs at: each periodic sweep (provider polling, exchange stall, expiry, webhook
 * dispatch and recovery, proof expiry) once a second instead of once a minute or every 5–30 s, and work written by
 * another process (the CLI) looked for every 100 ms. What a sweep finds due still depends on the stored times (tests
 * backdate a row to say "unchanged five minutes"), so a test proves "after a minute" without waiting one. A test may
 * override either (pass the variable in `env`); `bun run test:slow` runs the real schedules.
 */
export const FAST_CADENCE: Record<string, string> = {
  CARAVAN_SWEEP_SCHEDULE: "* * * * * *",
  CARAVAN_ACTOR_POLL_MS: "100",
};

/**
 * Every test server draws report PDFs at its own priority (CARAVAN_PDF_NICE=0) rather than the product's nice 19:
 * with the test files spread over worker processes the cores are always busy, and a render thread at nice 19 then
 * waits behind every other worker (with four workers a CJK render at nice 19 ran past its 60 s hang guard). What a
 * PDF holds does not depend on its priority;
 * the binary's own test (test/binary-reports.test.ts) still proves the nice 19 default. A test may override it.
 */
export const TEST_SERVER_ENV: Record<string, string> = { CARAVAN_PDF_NICE: "0" };

export const repoRoot = join(import.meta.dir, "../..");
const main = join(repoRoot, "src/main.ts");

export interface ChildServer {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  output(): string;
  /**
   * The output once it contains `text` (the server's stdout is read as it arrives, so a line logged while answering
   * may land just after the answer); after `ms` the output as it is, for the assertion to show.
   */
  untilOutput(text: string, ms?: number): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export async function startServer(
  env: Record<string, string>,
  opts: { runtime?: "bun" | "deno"; timeoutMs?: number } = {},
): Promise<ChildServer> {
  env = await withTestEngine(env);
  const cmd = opts.runtime === "deno" ? ["deno", "run", "-A", main, "serve"] : ["bun", main, "serve"];
  const proc = Bun.spawn(cmd, {
    cwd: repoRoot,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn", ...TEST_SERVER_ENV, ...(process.env.CARAVAN_TEST_REAL_CADENCE ? {} : FAST_CADENCE), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) err += new TextDecoder().decode(chunk);
  })();
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let url: string | undefined;
  while (!url) {
    const next = await Promise.race([
      reader.read(),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => "timeout" as const),
    ]);
    if (next === "timeout" || next.done) {
      proc.kill("SIGKILL");
      throw new Error(`server did not start: ${out}\n${err}`);
    }
    out += new TextDecoder().decode(next.value);
    url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
  })();
  return {
    url,
    proc,
    output: () => out + err,
    async untilOutput(text: string, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!(out + err).includes(text) && Date.now() < deadline) await Bun.sleep(20);
      return out + err;
    },
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  env = await withTestEngine(env);
  const proc = Bun.spawn(["bun", main, ...args], {
    cwd: repoRoot,
    env: { ...process.env, CARAVAN_LOG: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * An http origin on loopback where nothing listens (a port bound, then released): point a vendor's address here so that
 * a test which must fail to connect never reaches the real vendor, whatever network the machine has.
 */
export async function closedLoopbackOrigin(): Promise<string> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 404 }) });
  const origin = `http://127.0.0.1:${s.port}`;
  await s.stop(true);
  return origin;
}
