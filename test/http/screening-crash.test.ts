// Crash safety of a checkpoint: the server is SIGKILLed while screening requests are in flight; after a restart every
// transfer is screened again and its verdict applied exactly once (one hold, one event, no pending check left).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import { JANE, VIKTOR } from "../support/persons.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "screening-crash.db");
let S: ChildServer | undefined;
let vc: ScreeningCSandbox;
let peer: ProviderBPeer;
const seed = randomSeedBase64();
const { newKey, call } = apiClient(db, () => S!.url);
let owner: string;
let live: string;

const env = () => ({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}` });

function rows<T>(sql: string, ...args: unknown[]): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.query(sql).all(...(args as never[])) as T[];
  } finally {
    d.close();
  }
}

beforeAll(async () => {
  vc = await startScreeningCSandbox();
  peer = await startProviderBPeer({ vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE" }] });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = (await newKey("--env", "test", "--role", "owner")).key;
  live = (await newKey("--env", "live", "--role", "owner")).key;
});

afterAll(async () => {
  await S?.stop("SIGKILL");
  await vc?.stop();
  await peer?.stop();
});

test("SIGKILL while screening: after restart each transfer is held once, with one check run and one event", async () => {
  S = await startServer(env());
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner, live]) {
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_API_KEY } } })).status).toBe(201);
    expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  }
  expect((await call("/api/v2/integrations/screening_c", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url });
  const C = (await call("/api/v2/integrations/screening_c", { key: owner })).body.data.id;
  const rule = {
    name: "Watch-list name hit",
    category: "sanctions",
    stage: "precheck",
    action: "require_review",
    condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] },
  };
  expect((await call("/api/v2/rules", { method: "POST", key: owner, json: rule })).status).toBe(201);
  const customerId = (await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } })).body.data.id;
  const originatorAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: originatorAddress } })).status).toBe(201);
  const ids: string[] = [];
  vc.setFault({ kind: "slow", delayMs: 3_000 });
  for (let i = 0; i < 6; i++) {
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: owner,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: {
        asset: "ETH",
        amount: "1",
        network: "ethereum",
        originatorCustomerId: customerId,
        originatorAddress,
        beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        originator: { originatorPersons: [JANE] },
        beneficiary: { beneficiaryPersons: [VIKTOR] },
      },
    });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 202, error: undefined });
    ids.push(r.body.data.id);
  }
  // Wait until screening requests are in flight, then kill the server mid-screening.
  for (let i = 0; i < 100 && vc.requests.filter((q) => q.path === "/searches").length === 0; i++) await Bun.sleep(50);
  expect(vc.requests.filter((q) => q.path === "/searches").length).toBeGreaterThan(0);
  const pendingBefore = rows<{ checks: string }>("SELECT checks FROM transfers WHERE id IN (" + ids.map(() => "?").join(",") + ")", ...ids).filter((r) => r.checks.includes('"pending"')).length;
  await S.stop("SIGKILL");
  S = undefined;
  // The interrupted runs were recorded before the vendor was called.
  expect(pendingBefore).toBeGreaterThan(0);
  vc.setFault(null);
  S = await startServer(env());
  for (const id of ids) {
    let state = "";
    for (let i = 0; i < 300 && state !== "held"; i++) {
      state = (await call(`/api/v2/transfers/${id}`, { key: owner })).body.data.state;
      if (state !== "held") await Bun.sleep(100);
    }
    expect(state).toBe("held");
    const [t] = rows<{ history: string; checks: string }>("SELECT history, checks FROM transfers WHERE id = ?", id);
    const history = JSON.parse(t.history) as { type: string }[];
    expect(history.filter((h) => h.type === "held")).toHaveLength(1);
    const checks = JSON.parse(t.checks) as { status: string }[];
    expect(checks.filter((c) => c.status === "pending")).toEqual([]);
    expect(checks).toHaveLength(1);
    const events = rows<{ type: string }>("SELECT type FROM events WHERE entity_id = ?", id).map((e) => e.type);
    expect(events.filter((e) => e === "transfer.held")).toHaveLength(1);
    expect(events.filter((e) => e === "compliance.screening_complete")).toHaveLength(1);
  }
  expect(rows("SELECT id FROM actor_dead_letters")).toEqual([]);
  heldIds.push(...ids);
});

const heldIds: string[] = [];

test("SIGKILL right after the cases are resolved: after restart each held transfer moved exactly once, each case says so once", async () => {
  expect(heldIds.length).toBeGreaterThan(0);
  const cases = (await call("/api/v2/cases?hasTransfer=true&status=open&limit=200", { key: owner })).body.data as { id: string; transferIds: string[] }[];
  // Each held transfer has its open case (checked per transfer, so a missing one is named).
  const byTransfer = new Map<string, string>();
  for (const transferId of heldIds) {
    const found = cases.filter((c) => c.transferIds.includes(transferId)).map((c) => c.id);
    expect({ transferId, cases: found.length }).toEqual({ transferId, cases: 1 });
    byTransfer.set(transferId, found[0]!);
  }
  // The resolutions commit (each with its message to the transfer's actor); the server dies before or while the
  // transfers move.
  const answers = await Promise.all(
    [...byTransfer.values()].map((caseId) => call(`/api/v2/cases/${caseId}/resolve`, { method: "POST", key: owner, json: { resolution: "approved" } })),
  );
  for (const a of answers) expect(a.body.meta.transferAction.result).toBe("queued");
  await S!.stop("SIGKILL");
  S = await startServer(env());
  for (const [transferId, caseId] of byTransfer) {
    let moved: { action: string; newValue: string }[] = [];
    for (let i = 0; i < 200 && moved.length === 0; i++) {
      const h = await call(`/api/v2/cases/${caseId}/history?limit=100`, { key: owner });
      moved = (h.body.data as { action: string; newValue: string }[]).filter((e) => e.action === "transfer_updated" || e.action === "transfer_not_updated");
      if (moved.length === 0) await Bun.sleep(50);
    }
    expect(moved).toEqual([expect.objectContaining({ action: "transfer_updated", newValue: "queued" })]);
    const [t] = rows<{ history: string; state: string }>("SELECT history, state FROM transfers WHERE id = ?", transferId);
    const history = JSON.parse(t.history) as { type: string }[];
    expect(history.filter((e) => e.type === "resumed")).toHaveLength(1);
    expect(t.state).not.toBe("held");
  }
  expect(rows("SELECT id FROM actor_dead_letters")).toEqual([]);
});
