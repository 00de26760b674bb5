// The docs as a newcomer uses them: every shell block of the README and of the walkthrough pages runs, as written,
// against a fresh server (real process on a free loopback port, a temporary database), with `127.0.0.1:8080`
// replaced by the server's address. A block that installs or serves until stopped is marked in the markdown with
// `<!-- docs-test: skip — why -->` on the line before it, and the reason must be given. curl runs with
// --fail-with-body, so an API refusal fails the block. Also: no page points to files a clone does not have.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli, startServer, type ChildServer } from "./support/server.ts";
import { runCliInProcess, withMember } from "./support/cli.ts";

// Real processes on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

/** The pages whose shell blocks are walkthroughs: every block runs or is marked skip with its reason. */
const WALKTHROUGHS = ["README.md", "docs/customers-wallets.md", "docs/transfers.md"];

interface Block {
  file: string;
  line: number;
  code: string;
  skip: string | null;
}

const SKIP = /^<!--\s*docs-test:\s*skip\b\s*(?:[—–-]\s*)?(.*?)\s*-->$/;

export function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i])) continue;
    let prev = i - 1;
    while (prev >= 0 && lines[prev].trim() === "") prev--;
    const skip = prev >= 0 ? SKIP.exec(lines[prev].trim()) : null;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    out.push({ file, line: i + 1, code: lines.slice(start, end).join("\n"), skip: skip ? skip[1] : null });
    i = end;
  }
  return out;
}

const dir = tempDir();
const db = join(dir, "docs.db");
let S: ChildServer;

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  S = await startServer({ CARAVAN_DB: db });
});

afterAll(async () => {
  await S?.stop();
});

/** Runs one block in bash from the repository root, on the test's database and server. */
async function run(b: Block): Promise<{ code: number; out: string }> {
  const origin = new URL(S.url).origin;
  const script = [
    "set -e",
    // An API refusal (4xx/5xx) fails the block, as a reader would notice it.
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    b.code.replaceAll("http://127.0.0.1:8080", origin),
  ].join("\n");
  const proc = Bun.spawn(["bash", "-c", script], {
    cwd: repoRoot,
    env: { ...process.env, CARAVAN_DB: db, CARAVAN_LOG: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: stdout + stderr };
}

describe("walkthrough blocks run as written", () => {
  for (const file of WALKTHROUGHS) {
    const blocks = shellBlocks(file);
    test(`${file}: has shell blocks, and every skipped one says why`, () => {
      expect(blocks.length).toBeGreaterThan(0);
      for (const b of blocks) if (b.skip !== null) expect({ at: `${b.file}:${b.line}`, why: b.skip.length > 10 }).toEqual({ at: `${b.file}:${b.line}`, why: true });
    });
    for (const b of blocks.filter((x) => x.skip === null)) {
      test(`${file}:${b.line}`, async () => {
        const r = await run(b);
        if (r.code !== 0) console.error(`${file}:${b.line} exited ${r.code}:\n${r.out}`);
        expect(r.code).toBe(0);
        // Every API answer the block printed is a success envelope, never an error body.
        expect(r.out).not.toMatch(/"code":"[A-Z_]+"/);
      });
    }
  }

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
});

describe("pages stand on their own", () => {
  const pages = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), ...readdirSync(join(repoRoot, "docs/providers")).map((f) => `docs/providers/${f}`)];

  test("no page points outside the repository (../shared/), to a part of a contract, an issue number or a dashboard", () => {
    const bad: string[] = [];
    for (const p of pages) {
      const lines = readFileSync(join(repoRoot, p), "utf8").split("\n");
      lines.forEach((l, i) => {
        if (/\.\.\/shared\/|\bPart [123]\b|\b[Ii]ssue \d+|\bdashboard\b|\bthe spec\b|\bspec's\b/.test(l)) bad.push(`${p}:${i + 1}: ${l.trim().slice(0, 100)}`);
      });
    }
    expect(bad).toEqual([]);
  });
});
