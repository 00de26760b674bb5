// The docs as a newcomer uses them: every shell block of the README and of every page under docs/ runs, as written,
// against a fresh server (real process on a free loopback port, a temporary database). A block that installs, builds,
// serves until stopped or needs a terminal is marked in the markdown with `<!-- docs-test: skip — why -->` on the line
// before it, and the reason must be given. curl runs with --fail-with-body, so an API refusal fails the block, and
// `caravan` is the CLI from source (`bun src/main.ts`, the same program as the executable).
//
// What the test puts in place of what only the reader's machine has, and nothing else:
// - `http://127.0.0.1:8080` (the default listen address) → the test server's origin;
// - `http://127.0.0.1:8090` → the provider_b sandbox network the test starts with the page's own command
//   (docs/getting-started.md: `bun src/main.ts sandbox --port 8090`), on a free port;
// - `127.0.0.1:4000` and `RECEIVER_PORT=4000` (the webhook receiver of docs/webhooks.md) → a free port;
// - `/var/lib/caravan/caravan.db` and `/backups/` (docs/operations.md) → the page's temporary database and a folder.
// The server is started with the environment docs/getting-started.md tells the reader to start it with. The pages
// whose blocks stop the server (operations.md: the restore) get a server and database of their own, whose process ID
// the block finds in SERVER_PID. A comment line `# {"data":…}` right after a command says what its answer holds:
// every field it names is in that answer, with the value it shows unless the value is elided (`…`).
// Also: no page points to files a clone does not have, and figures the code defines (the newest migration, how many
// there are) are the code's.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli, startServer, type ChildServer } from "./support/server.ts";
import { runCliInProcess, withMember } from "./support/cli.ts";
import { newestMigration } from "../src/adapters/storage/migrations.ts";
import journal from "../db/migrations/meta/_journal.json" with { type: "json" };

// Real processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

interface Block {
  file: string;
  line: number;
  lang: string;
  code: string;
  skip: string | null;
}

const SKIP = /^<!--\s*docs-test:\s*skip\b\s*(?:[—–-]\s*)?(.*?)\s*-->$/;

/** The fenced blocks of a page in the given languages, with the skip marker on the line before each, if any. */
export function fencedBlocks(file: string, langs: string[] = ["sh", "bash", "shell"]): Block[] {
  const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (langs.includes(open[1])) {
      let prev = i - 1;
      while (prev >= 0 && lines[prev].trim() === "") prev--;
      const skip = prev >= 0 ? SKIP.exec(lines[prev].trim()) : null;
      out.push({ file, line: i + 1, lang: open[1], code: lines.slice(start, end).join("\n"), skip: skip ? skip[1] : null });
    }
    i = end;
  }
  return out;
}

export const shellBlocks = (file: string): Block[] => fencedBlocks(file);

const docsPages = (sub: string) =>
  readdirSync(join(repoRoot, sub))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `${sub}/${f}`);
/** Every page a reader follows: the README, then docs/ and docs/providers/ in name order. */
const PAGES = ["README.md", ...docsPages("docs"), ...docsPages("docs/providers")];
/** Pages whose blocks stop and restart the server: they run on a server and database of their own. */
const OWN_SERVER = new Set(["docs/operations.md"]);

/** `A=1 B=2 bun run start` in docs/getting-started.md: the environment the reader starts the server with. */
export function startEnvironment(): Record<string, string> {
  const line = fencedBlocks("docs/getting-started.md")
    .flatMap((b) => b.code.split("\n"))
    .find((l) => /\bbun run start\b/.test(l) && /^\s*[A-Z_]+=/.test(l));
  if (!line) throw new Error("docs/getting-started.md names no `VAR=value bun run start` line");
  const env: Record<string, string> = {};
  for (const m of line.split("bun run start")[0].matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]] = m[2];
  return env;
}

const dir = tempDir();
const db = join(dir, "docs.db");
const opsDir = join(dir, "ops");
const opsDb = join(opsDir, "caravan.db");
mkdirSync(join(opsDir, "backups"), { recursive: true });
let S: ChildServer;
let O: ChildServer;
let sandbox: ReturnType<typeof Bun.spawn> | undefined;
let sandboxUrl = "";
let sandboxOut = "";
let opsKeyId = "";
/** Every block's output, by `file:line`, for the checks of what particular blocks printed. */
const outputs = new Map<string, string>();

async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = s.port as number;
  await s.stop(true);
  return port;
}

/** `bun src/main.ts sandbox --port 8090` as the page says, on a free port, pointed at the test server. */
async function startSandbox(origin: string): Promise<string> {
  const command = fencedBlocks("docs/getting-started.md")
    .flatMap((b) => b.code.split("\n"))
    .find((l) => l.includes("src/main.ts sandbox"));
  if (!command?.includes("--port 8090")) throw new Error("docs/getting-started.md does not start the sandbox with --port 8090");
  const args = command.replace(/#.*$/, "").trim().split(/\s+/).slice(1).map((a) => (a === "8090" ? "0" : a));
  sandbox = Bun.spawn(["bun", ...args, "--caravan-url", origin], { cwd: repoRoot, env: { ...process.env, CARAVAN_LOG: "warn" }, stdout: "pipe", stderr: "pipe" });
  let out = "";
  const reader = (sandbox.stdout as ReadableStream<Uint8Array>).getReader();
  // Every peer is listening once the last one (provider_a) has printed its line.
  while (!/provider_a sandbox network at/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the sandbox did not start:\n${out}\n${await new Response(sandbox.stderr as ReadableStream).text()}`);
    out += new TextDecoder().decode(value);
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  sandboxOut = out;
  return /provider_b sandbox network at (http:\/\/\S+)/.exec(out)![1];
}

beforeAll(async () => {
  const env = startEnvironment();
  for (const d of [db, opsDb]) {
    const m = await runCliInProcess(["migrate"], { CARAVAN_DB: d });
    if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  }
  // The operator's database holds a key before its backup is taken: the restored one must hold it again.
  const k = await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: opsDb })), "--json"], { CARAVAN_DB: opsDb });
  opsKeyId = JSON.parse(k.stdout.trim().split("\n").at(-1)!).id;
  [S, O] = await Promise.all([startServer({ ...env, CARAVAN_DB: db }), startServer({ ...env, CARAVAN_DB: opsDb })]);
  sandboxUrl = await startSandbox(new URL(S.url).origin);
});

afterAll(async () => {
  sandbox?.kill("SIGTERM");
  await sandbox?.exited;
  await S?.stop();
  await O?.stop();
});

const MARK = "::docs-test-answer::";

/** Runs one block in bash from the repository root, on its page's database and server. */
async function run(b: Block): Promise<{ code: number; out: string; stdout: string; local: (text: string) => string }> {
  const own = OWN_SERVER.has(b.file);
  const server = own ? O : S;
  const origin = new URL(server.url).origin;
  const receiverPort = await freePort();
  const local = (text: string) =>
    text
      .replaceAll("http://127.0.0.1:8080", origin)
      .replaceAll("http://127.0.0.1:8090", sandboxUrl)
      .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
      .replaceAll("RECEIVER_PORT=4000", `RECEIVER_PORT=${receiverPort}`)
      .replaceAll("/var/lib/caravan/caravan.db", own ? opsDb : db)
      .replaceAll("/backups/", `${join(opsDir, "backups")}/`);
  const code = local(b.code)
    // A comment that shows an answer marks where that answer ends (see answersAsShown).
    .split("\n")
    .map((l) => (/^\s*# \{/.test(l) ? `echo; echo '${MARK}'` : l))
    .join("\n");
  const script = [
    "set -e",
    // An API refusal (4xx/5xx) fails the block, as a reader would notice it.
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    // The CLI as the executable would run it, from source.
    'caravan() { bun src/main.ts "$@"; }',
    code,
  ].join("\n");
  const proc = Bun.spawn(["bash", "-c", script], {
    cwd: repoRoot,
    env: { ...process.env, CARAVAN_DB: own ? opsDb : db, CARAVAN_LOG: "warn", PORT: new URL(origin).port, SERVER_PID: String(server.proc.pid) },
    stdout: "pipe",
    stderr: "pipe",
    // Its own process group: whatever the block left running (a receiver, a restarted server) is stopped with it.
    detached: true,
  });
  const texts = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const exit = await proc.exited;
  // What it left running holds its output open: stop it, then read to the end.
  try {
    process.kill(-proc.pid, "SIGTERM");
  } catch {
    // the group is gone already
  }
  const [stdout, stderr] = await texts;
  return { code: exit, out: stdout + stderr, stdout, local };
}

/** The answers a block's `# {…}` comments describe, each paired with the output of the command before it. */
export function answersAsShown(b: Block, stdout: string): { shown: string; printed: string }[] {
  const shown = b.code.split("\n").filter((l) => /^\s*# \{/.test(l)).map((l) => l.trim().slice(2));
  const printed = stdout.split(MARK);
  return shown.map((s, i) => ({ shown: s, printed: printed[i] ?? "" }));
}

/** The fields a shown answer names that the printed one lacks (or holds with another value). */
export function missingFields(shown: string, printed: string): string[] {
  const missing: string[] = [];
  for (const m of shown.matchAll(/"(\w+)":("[^"]*"|true|false|null|-?\d+(?:\.\d+)?)?/g)) {
    const [, key, value] = m;
    const expected = value !== undefined && !value.includes("…") ? `"${key}":${value}` : `"${key}":`;
    if (!printed.includes(expected)) missing.push(expected);
  }
  return missing;
}

describe("every shell block of the docs runs as written", () => {
  for (const file of PAGES) {
    const blocks = fencedBlocks(file);
    if (blocks.length === 0) continue;
    test(`${file}: every skipped block says why`, () => {
      for (const b of blocks) if (b.skip !== null) expect({ at: `${b.file}:${b.line}`, why: b.skip.length > 10 }).toEqual({ at: `${b.file}:${b.line}`, why: true });
    });
    for (const b of blocks.filter((x) => x.skip === null)) {
      test(`${file}:${b.line}`, async () => {
        const r = await run(b);
        outputs.set(`${file}:${b.line}`, r.out);
        if (r.code !== 0) console.error(`${file}:${b.line} exited ${r.code}:\n${r.out}`);
        expect(r.code).toBe(0);
        // Every API answer the block printed is a success envelope, never an error body.
        expect(r.out).not.toMatch(/"code":"[A-Z_]+"/);
        for (const a of answersAsShown(b, r.stdout)) expect({ shown: a.shown, missing: missingFields(r.local(a.shown), a.printed) }).toEqual({ shown: a.shown, missing: [] });
      });
    }
  }

  test("the pages with walkthroughs have blocks that run (none is skipped wholesale)", () => {
    for (const f of ["README.md", "docs/customers-wallets.md", "docs/transfers.md", "docs/getting-started.md", "docs/webhooks.md", "docs/rules.md", "docs/operations.md"])
      expect({ f, running: fencedBlocks(f).filter((b) => b.skip === null).length > 0 }).toEqual({ f, running: true });
  });

  test("the README walkthrough made what it says: a customer found by name, its wallet listed", async () => {
    const key = (await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: db })), "--json"], { CARAVAN_DB: db })).stdout.trim().split("\n").at(-1)!;
    const k = JSON.parse(key).key as string;
    const found = await (await fetch(`${S.url}/api/v2/customers?search=van`, { headers: { "x-api-key": k } })).json();
    const jane = found.data.find((c: { externalId: string }) => c.externalId === "user-1001");
    expect(jane).toBeDefined();
    const wallets = await (await fetch(`${S.url}/api/v2/wallets?customerId=${jane.id}`, { headers: { "x-api-key": k } })).json();
    expect(wallets.data.map((w: { address: string }) => w.address.toLowerCase())).toContain("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed");
    const transfers = await (await fetch(`${S.url}/api/v2/transfers?limit=50`, { headers: { "x-api-key": k } })).json();
    expect(transfers.data.find((t: { externalId: string }) => t.externalId === "order-2001")?.state).toBe("completed");
  });

  test("getting started ends with a transfer above the threshold carried by the provider_b sandbox, completed", async () => {
    const key = JSON.parse((await runCliInProcess(["keys", "create", ...(await withMember(["--env", "test", "--role", "owner"], { CARAVAN_DB: db })), "--json"], { CARAVAN_DB: db })).stdout.trim().split("\n").at(-1)!).key as string;
    const list = await (await fetch(`${S.url}/api/v2/transfers?limit=100`, { headers: { "x-api-key": key } })).json();
    const t = list.data.find((x: { externalId: string }) => x.externalId === "order-3001");
    expect(t).toBeDefined();
    expect({ state: t.state, protocol: t.travelRule.protocol, vasp: t.beneficiary.vaspName }).toEqual({ state: "completed", protocol: "provider_b", vasp: "Alpine Exchange" });
  });

  test("the provider_b settings caravan sandbox prints are the ones docs/getting-started.md pastes", () => {
    const credentials = (text: string) => JSON.parse(/-d '(\{"credentials":[^']+\})'/.exec(text)?.[1] ?? "null");
    const page = fencedBlocks("docs/getting-started.md").find((b) => b.skip === null && b.code.includes("providers/provider_b"))!;
    const printed = credentials(sandboxOut);
    expect(printed).not.toBeNull();
    expect(credentials(page.code.replaceAll("http://127.0.0.1:8090", sandboxUrl))).toEqual(printed);
  });

  test("the webhook receiver of docs/webhooks.md is the file it names, and it printed the test delivery's subscription", () => {
    const [snippet] = fencedBlocks("docs/webhooks.md", ["ts"]);
    expect(snippet.code + "\n").toBe(readFileSync(join(repoRoot, "docs/examples/webhook-receiver.ts"), "utf8"));
    const block = fencedBlocks("docs/webhooks.md").find((b) => b.code.includes("webhook-receiver.ts") && b.skip === null)!;
    const out = outputs.get(`${block.file}:${block.line}`) ?? "";
    const hook = /"id":"(whk_[a-z0-9]+)"/.exec(out)?.[1];
    expect(hook).toBeDefined();
    // `dlv_… test.ping whk_…`: the ping carries the subscription's ID (data.webhookId), nothing named data.id.
    expect(out).toMatch(new RegExp(`dlv_[a-z0-9]+ test\\.ping ${hook}`));
    expect(out).not.toContain("undefined");
  });

  test("the restore's step 2 as the list shows it moves what exists aside and exits 0 when -wal and -shm are absent", async () => {
    const page = readFileSync(join(repoRoot, "docs/operations.md"), "utf8");
    const step = /^2\. Move the current database aside[\s\S]*?`(for f in [^`]+)`/m.exec(page)?.[1];
    expect(step).toBeDefined();
    const where = join(dir, "step2");
    mkdirSync(where);
    await Bun.write(join(where, "caravan.db"), "x");
    const proc = Bun.spawn(["bash", "-c", `set -e\nDB=${join(where, "caravan.db")}\n${step}`], { stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect(readdirSync(where).sort()).toEqual(["caravan.db.broken"]);
  });

  test("the restore recipe of docs/operations.md ran on a restored database that answers with its old key", async () => {
    const block = fencedBlocks("docs/operations.md").find((b) => b.code.includes("install -m 0600") && b.skip === null)!;
    const out = outputs.get(`${block.file}:${block.line}`) ?? "";
    expect(out).toContain('{"status":"ok"}');
    expect(out).toContain(opsKeyId);
    expect(readdirSync(opsDir).filter((f) => f.endsWith(".broken"))).toContain("caravan.db.broken");
  });
});

describe("pages stand on their own", () => {
  const pages = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), ...readdirSync(join(repoRoot, "docs/providers")).map((f) => `docs/providers/${f}`)];

  test("no page points outside the repository (../shared/), to a part of a contract, an issue number or a dashboard", () => {
    const bad: string[] = [];
    for (const p of pages) {
      const lines = readFileSync(join(repoRoot, p), "utf8").split("\n");
      lines.forEach((l, i) => {
        if (/\.\.\/shared\/|\bPart [123]\b|\b[Ii]ssue \d+|\b[Tt]he issue\b|\bissue's\b|\bdashboard\b|\bthe spec\b|\bspec's\b/.test(l)) bad.push(`${p}:${i + 1}: ${l.trim().slice(0, 100)}`);
      });
    }
    expect(bad).toEqual([]);
  });

  test("no command block escapes the docs test: fences are not indented and name a language it knows", () => {
    const known = new Set(["sh", "bash", "shell", "", "text", "json", "ts", "cron"]);
    const bad: string[] = [];
    for (const p of pages) {
      let open = false;
      readFileSync(join(repoRoot, p), "utf8")
        .split("\n")
        .forEach((l, i) => {
          if (/^\s+```/.test(l)) bad.push(`${p}:${i + 1}: indented fence`);
          const m = /^```(.*)$/.exec(l);
          if (!m) return;
          if (!open && !known.has(m[1].trim())) bad.push(`${p}:${i + 1}: \`\`\`${m[1]}`);
          open = !open;
        });
    }
    expect(bad).toEqual([]);
  });

  test("figures the code defines are the code's: the newest migration and how many there are", () => {
    const newest = newestMigration()!.slice(0, 4);
    const count = journal.entries.length;
    const bad: string[] = [];
    for (const p of pages) {
      const lines = readFileSync(join(repoRoot, p), "utf8").split("\n");
      lines.forEach((l, i) => {
        for (const m of l.matchAll(/\bschema (\d{4})_/g)) if (m[1] !== newest) bad.push(`${p}:${i + 1}: schema ${m[1]}_ (the newest migration is ${newestMigration()})`);
        for (const m of l.matchAll(/\b(\d+) migrations\b/g)) if (Number(m[1]) !== count) bad.push(`${p}:${i + 1}: ${m[1]} migrations (there are ${count})`);
      });
    }
    expect(bad).toEqual([]);
  });
});
