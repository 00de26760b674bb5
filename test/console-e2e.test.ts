// The operator console end to end (issue 18): the real server, the screening_c and provider_b sandboxes, and
// `caravan console` running in a real terminal (tmux, read back with capture-pane). A rule holds a transfer created
// through the API; the console shows it, the officer resolves its case by keystrokes and sees the transfer move;
// an analyst's console shows the case's personal data masked.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, runCli, startServer, type ChildServer } from "./support/server.ts";
import { apiClient } from "./support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../src/adapters/providers/provider_b/crypto.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../src/sandbox/screening_c/index.ts";
import { JANE, VIKTOR } from "./support/persons.ts";

// Servers, sandboxes and terminals on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const hasTmux = Bun.spawnSync(["sh", "-c", "command -v tmux"]).exitCode === 0;
const dir = tempDir();
const db = join(dir, "console.db");
const socket = `caravan-console-e2e-${process.pid}`;
let S: ChildServer;
let peer: ProviderBPeer;
let vc: ScreeningCSandbox;
const { newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
let analyst: string;
let customerId: string;
let ruleId: string;
let heldId: string;
const seed = randomSeedBase64();

const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const VIKTOR_ADDR = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb";

function tmux(...args: string[]): string {
  const r = Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

const screen = (session: string) => tmux("capture-pane", "-p", "-t", session);

/** One key per call (keys sent together may arrive as one input). */
async function press(session: string, ...keys: string[]) {
  for (const k of keys) {
    tmux("send-keys", "-t", session, k);
    await Bun.sleep(150);
  }
}

/** Waits until the screen satisfies `ok`; `ms` bounds the wait (the hang guard is the test timeout). */
async function until(session: string, ok: (s: string) => boolean, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  let s = "";
  while (Date.now() < deadline) {
    s = screen(session);
    if (ok(s)) return s;
    await Bun.sleep(50);
  }
  throw new Error(`screen never matched within ${ms} ms:\n${s}`);
}

function openConsole(session: string, key: string, extraEnv = "") {
  const cmd = `cd ${repoRoot} && ${extraEnv} CARAVAN_URL=${S.url} CARAVAN_API_KEY=${key} bun src/main.ts console; sleep 30`;
  tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd);
}

beforeAll(async () => {
  // Not skipped when missing: the console's proof needs a real terminal.
  if (!hasTmux) throw new Error("tmux is required for the console's end-to-end test (Debian package tmux; .ci/run installs it)");
  vc = await startScreeningCSandbox();
  peer = await startProviderBPeer({
    vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { viktor: [VIKTOR] }, wallets: [{ address: VIKTOR_ADDR, customer: "viktor" }] }],
  });
  expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  analyst = (await newKey("--env", "test", "--role", "analyst")).key;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
  });
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  // Settings are per environment; enabling is a live-key change (Part 2), as in test/http/screening-checkpoints.test.ts.
  for (const key of [owner, live]) {
    expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_API_KEY } } })).status).toBe(201);
  }
  for (const path of ["/api/v2/providers/provider_b", "/api/v2/integrations/screening_c"])
    expect((await call(path, { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const C = (await call("/api/v2/integrations/screening_c", { key: owner })).body.data.id;
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  const rule = await call("/api/v2/rules", {
    method: "POST",
    key: owner,
    json: {
      name: "Watch-list name hit",
      category: "sanctions",
      stage: "precheck",
      action: "require_review",
      condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] },
    },
  });
  expect({ status: rule.status, body: rule.status === 201 ? null : rule.body }).toEqual({ status: 201, body: null });
  ruleId = rule.body.data.id;
});

afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
  await S?.stop();
  await Promise.all([peer?.stop(), vc?.stop()]);
});

async function transferState(id: string): Promise<string> {
  const r = await call(`/api/v2/transfers/${id}`, { key: owner });
  expect(r.status).toBe(200);
  return r.body.data.state;
}

describe("caravan console in a terminal", () => {
  test("the status line names the server, environment, member and role; the stream is live", async () => {
    openConsole("officer", owner);
    const s = await until("officer", (s) => s.includes(ownerEmail.slice(0, 20)) && s.includes("live"));
    expect(s).toContain(S.url.replace("http://", ""));
    expect(s).toContain("test");
    expect(s).toContain("owner");
    expect(s).toContain("1 Overview");
    expect(s).not.toMatch(/at .*\.(ts|js):\d+/); // no stack trace
  });

  // The issue asks for "within 2 s"; on a shared, noisy machine a timing bound in a test is a flake, so the bound here
  // is a hang guard and the latency is printed (and recorded in docs/console.md).
  test("a transfer held by a rule appears on Held transfers live (pushed by the event stream)", async () => {
    await press("officer", "2");
    await until("officer", (s) => s.includes("no held transfers"));
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: owner,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: {
        asset: "ETH",
        amount: "1",
        network: "ethereum",
        originatorCustomerId: customerId,
        originatorAddress: ORIGIN_ADDR,
        beneficiaryAddress: VIKTOR_ADDR,
        originator: { originatorPersons: [JANE] },
        beneficiary: { beneficiaryPersons: [VIKTOR] },
      },
    });
    expect(r.status).toBe(202);
    heldId = r.body.data.id;
    for (let i = 0; i < 300 && (await transferState(heldId)) !== "held"; i++) await Bun.sleep(20);
    expect(await transferState(heldId)).toBe("held");
    const heldAt = Date.now();
    const s = await until("officer", (s) => s.includes(heldId.slice(-8)), 10_000);
    console.log(`console: held transfer on screen ${Date.now() - heldAt} ms after the API showed it held`);
    expect(s).toMatch(/held\s+pending/);
  });

  test("the detail shows the checks, the rule that matched and the linked case", async () => {
    await press("officer", "Enter");
    const s = await until("officer", (s) => s.includes("rule matched") && s.includes("CASE-TEST-"));
    expect(s).toContain(heldId);
    expect(s).toContain("screening_c precheck");
    expect(s).toContain("Watch-list name hit");
  });

  test("an analyst's console shows the case title as *** and refuses to resolve", async () => {
    openConsole("analyst", analyst);
    await until("analyst", (s) => s.includes("analyst") && s.includes("live"));
    await press("analyst", "3");
    const s = await until("analyst", (s) => s.includes("CASE-TEST-"));
    const row = s.split("\n").find((l) => l.includes("CASE-TEST-"))!;
    expect(row).toContain("***");
    expect(s).not.toContain("Watch-list");
    await press("analyst", "o");
    await until("analyst", (s) => s.includes("not allowed") && s.includes("cases:resolve"));
    // The officer's own list shows the title in clear.
    await press("officer", "c");
    await until("officer", (s) => s.includes("Title") && s.includes("Watch-list name hit") && s.includes("CASE-TEST-"));
  });

  test("resolving the case approved by keystrokes shows meta.transferAction, then transfer_updated, and the transfer leaves held", async () => {
    await press("officer", "o");
    await until("officer", (s) => s.includes("approved (resumes"));
    await press("officer", "1"); // approved
    await until("officer", (s) => s.includes("Resolution note"));
    for (const ch of "cleared") await press("officer", ch);
    await press("officer", "Enter");
    await until("officer", (s) => s.includes("Confirm? y / n"));
    await press("officer", "y");
    const s = await until("officer", (s) => s.includes(`transfer ${heldId} queued`));
    expect(s).toContain("resolved approved");
    await until("officer", (s) => /transfer_updated/.test(s));
    expect(await transferState(heldId)).not.toBe("held");
    await press("officer", "Escape");
    await press("officer", "2");
    await until("officer", (s) => s.includes("no held transfers"));
  });

  test("a resize to 200×60 is followed: the transfer list and its detail side by side", async () => {
    tmux("resize-window", "-t", "officer", "-x", "200", "-y", "60");
    await press("officer", "f", "f"); // all states
    await until("officer", (s) => s.includes("Transfers · all") && s.includes(heldId.slice(-8)));
    await press("officer", "Enter");
    const s = await until("officer", (s) => s.includes("Amount      1 ETH"));
    const row = s.split("\n").find((l) => l.includes(heldId.slice(-8)) && l.includes(heldId))!;
    expect(row).toBeTruthy(); // the list row and the detail's first line share a line
    expect(s.split("\n").length).toBeGreaterThanOrEqual(60);
  });
});
