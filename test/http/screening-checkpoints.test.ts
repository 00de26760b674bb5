// Rule checkpoints end to end (issue "Rules and screening"): a real Caravan server, the sandbox screening vendors
// (screening_c names, screening_d addresses) and the sandbox provider_b network, all over real HTTP on loopback.
// Part 2 "Rule", Part 3 "What the service does" 3–4, "screening_c screening", "screening_d screening", provider_b flows.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import { startScreeningDSandbox, SANDBOX_SCREENING_D_KEY, RISKY_ADDRESSES, type ScreeningDSandbox } from "../../src/sandbox/screening_d/index.ts";
import type { CallbackTarget } from "../../src/sandbox/provider_b/callbacks.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";
import { JANE, RICHARD, VIKTOR, person } from "../support/persons.ts";
import { resolveReportType } from "../../src/domain/reports/report.ts";
import { decodeEventData } from "../../src/adapters/storage/event-data.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "checkpoints.db");
let S: ChildServer;
let peer: ProviderBPeer;
let vc: ScreeningCSandbox;
let vd: ScreeningDSandbox;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
let analyst: string;
let officerEmail: string;
let customerId: string;
let C: string; // screening_c integration ID
let D: string; // screening_d integration ID
let providerId: string;
let target: CallbackTarget;
const seed = randomSeedBase64();

const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const VIKTOR_ADDR = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb";
const RISKY = RISKY_ADDRESSES.find((a) => a.blockchain === "eth" && a.riskscore > 0.9)!.address;
const JANE_IN = "0x52908400098527886E0F7030069857D2E4169EE7";

function body(beneficiaryAddress: string, beneficiary: Person[] = [RICHARD]) {
  return {
    asset: "ETH",
    amount: "1", // 3,200 USD at the snapshot rate: above the 1,000 USD FATF fallback
    network: "ethereum",
    originatorCustomerId: customerId,
    originatorAddress: ORIGIN_ADDR,
    beneficiaryAddress,
    originator: { originatorPersons: [JANE] },
    beneficiary: { beneficiaryPersons: beneficiary },
  };
}

async function create(beneficiaryAddress: string, beneficiary?: Person[]): Promise<string> {
  const r = await call("/api/v2/transfers", { method: "POST", key: owner, json: body(beneficiaryAddress, beneficiary), headers: { "Idempotency-Key": crypto.randomUUID() } });
  expect(r.status).toBe(202);
  return r.body.data.id;
}

async function detail(id: string, key = owner) {
  const r = await call(`/api/v2/transfers/${id}`, { key });
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Polls the transfer until its state leaves the given ones (bounded). */
async function settle(id: string, passing: string[] = ["queued", "processing", "exchanging"]) {
  for (let i = 0; i < 300; i++) {
    const t = await detail(id);
    if (!passing.includes(t.state)) return t;
    await Bun.sleep(100);
  }
  throw new Error(`transfer ${id} did not settle`);
}

function events(entityId: string): { type: string; data: Record<string, any> }[] {
  const d = new Database(db, { readonly: true });
  try {
    return (d.query("SELECT type, data FROM events WHERE entity_id = ? ORDER BY seq").all(entityId) as { type: string; data: string | Uint8Array }[]).map((e) => ({ type: e.type, data: JSON.parse(decodeEventData(e.data)) }));
  } finally {
    d.close();
  }
}

/** Creates rules for the duration of `fn`, then deactivates them (rules apply to every transfer of the environment). */
async function withRules(rules: Record<string, unknown>[], fn: (ids: string[]) => Promise<void>) {
  const ids: string[] = [];
  try {
    for (const r of rules) {
      const res = await call("/api/v2/rules", { method: "POST", key: owner, json: r });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    await fn(ids);
  } finally {
    for (const id of ids) await call(`/api/v2/rules/${id}`, { method: "DELETE", key: owner });
  }
}

const nameRule = (extra: Record<string, unknown> = {}) => ({
  name: "Watch-list name hit",
  category: "sanctions",
  stage: "precheck",
  action: "require_review",
  condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] },
  ...extra,
});
const addressRule = (extra: Record<string, unknown> = {}) => ({
  name: "Risky address",
  category: "aml",
  action: "block",
  condition: { rules: [{ type: "if", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9", action: "block" }] },
  ...extra,
});

beforeAll(async () => {
  vc = await startScreeningCSandbox();
  vd = await startScreeningDSandbox();
  peer = await startProviderBPeer({
    vasps: [
      {
        entityId: "VASP-BENE",
        name: "Bene Exchange",
        country: "DE",
        customers: { richard: [RICHARD], viktor: [VIKTOR] },
        wallets: [
          { address: BENE_ADDR, customer: "richard" },
          { address: RISKY, customer: "richard" },
          { address: VIKTOR_ADDR, customer: "viktor" },
        ],
      },
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  analyst = (await newKey("--env", "test", "--role", "analyst")).key;
  officerEmail = (await newKey("--env", "test", "--role", "compliance_officer")).memberEmail;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
    CARAVAN_SCREENING_D_URL: vd.url,
  });
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [owner, live]) {
    expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_API_KEY } } })).status).toBe(201);
    expect((await call("/api/v2/integrations/screening_d", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_SCREENING_D_KEY } } })).status).toBe(201);
  }
  for (const path of ["/api/v2/providers/provider_b", "/api/v2/integrations/screening_c", "/api/v2/integrations/screening_d"])
    expect((await call(path, { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  C = (await call("/api/v2/integrations/screening_c", { key: owner })).body.data.id;
  D = (await call("/api/v2/integrations/screening_d", { key: owner })).body.data.id;
  expect(C).toMatch(/^int_/);
  providerId = (await call("/api/v2/providers/provider_b", { key: owner })).body.data.callbackPaths[0].path.split("/")[7];
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: S.url, legalName: "Caravan Test VASP", country: "NL" });
  target = { fromEntityId: "VASP-BENE", toCaravanEnv: "test", providerId };
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  expect((await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } })).status).toBe(201);
  const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: JANE_IN } });
  expect(w.status).toBe(201);
  await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", ownerEmail);
  // The filing institution: a suspicion report is drafted for the company's jurisdiction when the threshold has none.
  await cli("companies", "profile", "--slug", "default", "--legal-name", "Caravan Test VASP", "--country", "NL");
});

afterAll(async () => {
  await S?.stop();
  await Promise.all([peer?.stop(), vc?.stop(), vd?.stop()]);
});

describe("which integrations a checkpoint calls", () => {
  test("enabling integrations alone screens nothing: no vendor request, no check, approved and carried", async () => {
    const [c0, d0] = [vc.requests.length, vd.requests.length];
    const id = await create(BENE_ADDR);
    const t = await settle(id);
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.compliance).toMatchObject({ status: "approved", total: 0, checks: [] });
    expect([vc.requests.length, vd.requests.length]).toEqual([c0, d0]);
    // A checkpoint still reports that it ran (no rule applied).
    const done = events(id).filter((e) => e.type === "compliance.screening_complete");
    expect(done.map((e) => e.data.stage)).toEqual(["precheck", "postcheck"]);
    expect(done[0].data).toMatchObject({ transferId: id, outcome: "approved", rulesEvaluated: 0, checks: [] });
  });

  test("a rule reading only screening_c calls screening_c alone, once per name, with the part3 body", async () => {
    await withRules([nameRule({ action: "flag", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "flag" }] } })], async () => {
      const [c0, d0] = [vc.requests.length, vd.requests.length];
      const id = await create(BENE_ADDR);
      const t = await settle(id);
      expect(t.state).toBe("awaiting_counterparty");
      expect(vd.requests.length).toBe(d0);
      const sent = vc.requests.slice(c0).filter((r) => r.path === "/searches");
      expect(sent.map((r) => (r.body as { search_term: string }).search_term).sort()).toEqual(["Jane Doe", "Richard Roe"]);
      for (const r of sent) {
        expect(r.authorization).toBe(`Token ${SANDBOX_API_KEY}`);
        expect(r.body).toEqual({ search_term: expect.any(String), fuzziness: 0.6, filters: { entity_type: "person" }, limit: 100, share_url: 0 });
      }
      expect(t.compliance.total).toBe(1);
      expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_c", type: "sanctions", stage: "precheck", status: "success", durationMs: expect.any(Number) });
    });
  });
});

describe("precheck verdicts", () => {
  test("require_review: a watch-list name holds the transfer before any exchange, verdict pending, a case opened, transfer.held", async () => {
    await withRules([nameRule()], async ([ruleId]) => {
      const id = await create(BENE_ADDR, [VIKTOR]);
      const t = await settle(id);
      expect(t.state).toBe("held");
      expect(t.compliance.status).toBe("pending");
      expect(t.cascade.attempts).toEqual([]);
      const check = t.compliance.checks[0];
      expect(check).toMatchObject({ integration: "screening_c", stage: "precheck", status: "success" });
      // The vendor's answer is shown to a role with pii:view, one screening per name.
      const hit = check.response.screenings.find((s: { party: string }) => s.party === "beneficiary");
      expect(hit.response.content.data.total_hits).toBeGreaterThan(0);
      // ... and null without pii:view (analyst).
      const masked = await detail(id, analyst);
      expect(masked.compliance.checks[0].response).toBeNull();
      const list = await call(`/api/v2/transfers?search=${id}`, { key: analyst });
      expect(list.body.data[0].compliance.checks[0]).toEqual({ name: "screening_c", status: "passed", response: null });
      const types = events(id).map((e) => e.type);
      expect(types).toContain("transfer.held");
      const done = events(id).find((e) => e.type === "compliance.screening_complete")!;
      expect(done.data).toMatchObject({ stage: "precheck", outcome: "held", matchedRules: [{ ruleId, action: "require_review", category: "sanctions" }] });
      // No personal data in the event.
      expect(JSON.stringify(done.data)).not.toContain("Krasnov");
    });
  });

  test("block on an address score: rejected with COMPLIANCE_POLICY (aml), SANCTIONS_MATCH (sanctions)", async () => {
    await withRules([addressRule()], async () => {
      const id = await create(RISKY);
      const t = await settle(id);
      expect(t.state).toBe("rejected");
      expect(t.rejection.reason).toBe("COMPLIANCE_POLICY");
      expect(t.compliance.status).toBe("rejected");
      expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_d", type: "blockchain_analytics", status: "success" });
      expect(t.cascade.attempts).toEqual([]);
      const sent = vd.requests.filter((r) => r.path === "/risk-check").at(-1)!;
      expect(Object.keys(sent.body as object).sort()).toEqual(["address", "blockchain", "entity_list", "type"]);
    });
    await withRules([addressRule({ category: "sanctions" })], async () => {
      const t = await settle(await create(RISKY));
      expect(t.state).toBe("rejected");
      expect(t.rejection.reason).toBe("SANCTIONS_MATCH");
    });
  });

  test("a clean transfer under the same rules is approved and carried", async () => {
    await withRules([nameRule(), addressRule()], async () => {
      const t = await settle(await create(BENE_ADDR));
      expect(t.state).toBe("awaiting_counterparty");
      expect(t.compliance.status).toBe("approved");
      // The name rule runs at precheck; the address rule (stage `both`, the default) at precheck and postcheck.
      expect(t.compliance.checks.map((c: { integration: string; stage: string; status: string }) => [c.stage, c.integration, c.status]).sort()).toEqual([
        ["postcheck", "screening_d", "success"],
        ["precheck", "screening_c", "success"],
        ["precheck", "screening_d", "success"],
      ]);
    });
  });

  test("a vendor failing (HTTP 503) makes a rule reading it require review: held", async () => {
    await withRules([nameRule({ action: "block", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "block" }] } })], async () => {
      vc.setFault({ kind: "status", status: 503 });
      try {
        const t = await settle(await create(BENE_ADDR));
        expect(t.state).toBe("held");
        expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_c", status: "error" });
        expect(JSON.stringify(t.compliance.checks[0].error ?? "")).not.toContain("failure");
      } finally {
        vc.setFault(null);
      }
    });
  });

  test("PATCH retry of a held transfer screens it again; reject of a held transfer rejects it", async () => {
    let held = "";
    let other = "";
    await withRules([nameRule()], async () => {
      held = await create(VIKTOR_ADDR, [VIKTOR]);
      other = await create(BENE_ADDR, [VIKTOR]);
      expect((await settle(held)).state).toBe("held");
      expect((await settle(other)).state).toBe("held");
      const r = await call(`/api/v2/transfers/${other}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "SANCTIONS_MATCH", details: "Confirmed match" } });
      expect(r.status).toBe(200);
      expect(r.body.data.state).toBe("rejected");
      expect(r.body.meta).toMatchObject({ action: "reject", previousState: "held" });
    });
    // The rule is gone: screening again approves, and the transfer is carried.
    const r = await call(`/api/v2/transfers/${held}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "False positive confirmed by the officer" } });
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ action: "retry", previousState: "held" });
    const t = await settle(held);
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.compliance.checks.length).toBe(1); // the first run's check stays on record
  });
});

describe("postcheck (provider_b beneficiary data)", () => {
  test("the counterparty's beneficiary is on the watch list: held after the provider accepted, its case open", async () => {
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      const t = await settle(id);
      expect(t.state).toBe("held");
      expect(t.status.theirs).toBe("accepted");
      expect(t.compliance.status).toBe("pending");
      expect(t.compliance.checks).toHaveLength(1);
      expect(t.compliance.checks[0]).toMatchObject({ stage: "postcheck", status: "success" });
      // The company's party's stored name and the counterparty's first person were screened.
      const names = t.compliance.checks[0].response.screenings.map((s: { party: string }) => s.party).sort();
      expect(names).toEqual(["beneficiary", "originator"]);
    });
  });

  test("retry on a transfer held at postcheck → queued again (as the transfer table says), the counterparty's data screened again, never sent to the provider again", async () => {
    const sends = () => peer.requests.filter((q) => q.route === "transfer").length;
    let id = "";
    let sent = 0;
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      id = await create(VIKTOR_ADDR, [VIKTOR]);
      expect((await settle(id)).state).toBe("held");
      sent = sends();
      // Still on the watch list: queued again, screened again at postcheck, held again.
      const r = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "second look" } });
      expect(r.status).toBe(200);
      expect(r.body.data.state).toBe("queued");
      expect(r.body.meta).toMatchObject({ action: "retry", previousState: "held" });
      const again = await settle(id);
      expect(again.state).toBe("held");
      expect(again.compliance.checks).toHaveLength(2);
    });
    // The rule is gone: queued again, the postcheck approves, the transfer goes on where the provider left it.
    const r = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "false positive" } });
    expect(r.body.data.state).toBe("queued");
    const t = await settle(id);
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(sends()).toBe(sent);
    const file = new Database(db, { readonly: true });
    const history = JSON.parse((file.query("SELECT history FROM transfers WHERE id = ?").get(id) as { history: string }).history) as { type: string; from: string; to: string }[];
    file.close();
    expect(history.filter((x) => x.type === "retry").map((x) => [x.from, x.to])).toEqual([["held", "queued"], ["held", "queued"]]);
  });

  test("a block at postcheck cancels at the provider (canceled, UNKNOWN), then the transfer is rejected", async () => {
    await withRules([nameRule({ stage: "postcheck", action: "block", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "block" }] } })], async () => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      // `held` (verdict rejected) is committed before the cancellation is sent (recorded first); it passes once the
      // provider answers. A transfer left held would not settle and fail the test.
      const t = await settle(id, ["queued", "processing", "exchanging", "held"]);
      expect(t.state).toBe("rejected");
      expect(t.rejection.reason).toBe("SANCTIONS_MATCH");
      const at = peer.transfers.get(t.cascade.externalId)!;
      expect(at.canceled).toBe(true);
      expect(at.cancelReason).toBe("UNKNOWN");
    });
  });
});

describe("incoming provider_b transfers", () => {
  const send = (originatorPersons: Person[]) =>
    peer.sendIncomingTransfer({ ...target, asset: "ETH", network: "ethereum", amount: "1", tradePrice: "3200", address: JANE_IN, originatorPersons, beneficiaryPersons: [JANE] });

  test("screening that needs review denies with LACK_OF_INFORMATION; a block denies with UNKNOWN; the checks are kept", async () => {
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      const reply = await send([VIKTOR]);
      expect(reply.body).toMatchObject({ result: "denied", reasonType: "LACK_OF_INFORMATION" });
      const list = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
      const t = await detail(list.body.data[0].id);
      expect(t.state).toBe("rejected");
      expect(t.rejection.reason).toBe("LACK_OF_INFORMATION");
      expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_c", stage: "postcheck", status: "success" });
    });
    await withRules([nameRule({ stage: "postcheck", action: "block", condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "block" }] } })], async () => {
      const reply = await send([VIKTOR]);
      expect(reply.body).toMatchObject({ result: "denied", reasonType: "UNKNOWN" });
    });
    // Clean names: verified.
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      const reply = await send([RICHARD]);
      expect(reply.body).toMatchObject({ result: "verified" });
    });
  });

  test("each further counterparty person (a company's representative) is screened in its own evaluation", async () => {
    const company: Person = { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Northwind Traders Ltd", legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "DE" } } as Person;
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      const reply = await send([company, VIKTOR]);
      expect(reply.body).toMatchObject({ result: "denied", reasonType: "LACK_OF_INFORMATION" });
      const list = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
      const t = await detail(list.body.data[0].id);
      expect(t.compliance.total).toBe(2);
      const alone = t.compliance.checks.find((c: { response: { screenings: unknown[] } }) => c.response.screenings.length === 1);
      expect(alone.response.screenings[0].party).toBe("originator");
    });
  });
});

describe("cases: opened by screening, resolution moves the held transfer", () => {
  async function caseOf(transferId: string) {
    for (let i = 0; i < 50; i++) {
      const r = await call("/api/v2/cases?hasTransfer=true&limit=200", { key: owner });
      expect(r.status).toBe(200);
      const found = (r.body.data as { id: string; transferIds: string[]; source: string }[]).filter((c) => c.transferIds.includes(transferId));
      if (found.length) return found;
      await Bun.sleep(50);
    }
    return [];
  }

  async function history(caseId: string, action: string) {
    for (let i = 0; i < 100; i++) {
      const r = await call(`/api/v2/cases/${caseId}/history?limit=100`, { key: owner });
      const hit = (r.body.data as { action: string; newValue: string }[]).filter((h) => h.action === action);
      if (hit.length) return hit;
      await Bun.sleep(50);
    }
    return [];
  }

  test("a precheck hold opens one case (sanctions_hit, the rule, screening); a second hold joins it; approved resumes routing", async () => {
    await withRules([nameRule({ severity: "high" })], async ([ruleId]) => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      expect((await settle(id)).state).toBe("held");
      const [c, ...more] = await caseOf(id);
      expect(more).toEqual([]);
      expect(c).toMatchObject({ type: "sanctions_hit", category: "sanctions", priority: "high", ruleId, status: "open", assigneeId: null, transferIds: [id] });
      expect(c.source).toMatch(/screening/);
      // Screening again (retry) holds it again: the same case, no second one.
      expect((await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "second look" } })).status).toBe(200);
      expect((await settle(id)).state).toBe("held");
      expect(await caseOf(id)).toHaveLength(1);
      // Resolved approved: the transfer goes on from where the precheck stopped it, without screening again.
      const checksBefore = (await detail(id)).compliance.total;
      const r = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "approved", resolutionNote: "False positive: different date of birth" } });
      expect(r.status).toBe(200);
      expect(r.body.meta.transferAction).toEqual({ transferId: id, result: "queued" });
      // The case actor tells the transfer's actor; the transfer leaves `held` a moment later.
      const t = await settle(id, ["held", "queued", "processing", "exchanging"]);
      expect(t.state).toBe("awaiting_counterparty");
      expect(t.compliance.status).toBe("approved");
      expect(t.compliance.total).toBe(checksBefore + 0); // the postcheck has no rule here; the precheck did not run again
      const moved = await history(c.id, "transfer_updated");
      expect(moved).toHaveLength(1);
      expect(moved[0].newValue).toBe("queued");
    });
  });

  test("a postcheck hold resolved rejected cancels at the provider, rejects, and drafts a suspicion report", async () => {
    await withRules([nameRule({ stage: "postcheck" })], async () => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      const held = await settle(id);
      expect(held.state).toBe("held");
      const [c] = await caseOf(id);
      const r = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "rejected", resolutionNote: "Confirmed match" } });
      expect(r.status).toBe(200);
      expect(r.body.meta.transferAction).toEqual({ transferId: id, result: "queued" });
      const moved = await history(c.id, "transfer_updated");
      expect(moved.map((h) => h.newValue)).toEqual(["rejected"]);
      const t = await detail(id);
      expect(t.state).toBe("rejected");
      expect(peer.transfers.get(held.cascade.externalId)!.canceled).toBe(true);
      const drafted = await history(c.id, "str_drafted");
      expect(drafted).toHaveLength(1);
      const report = await call(`/api/v2/reports/${drafted[0].newValue}`, { key: owner });
      expect(report.status).toBe(200);
      expect(report.body.data).toMatchObject({ kind: "suspicion", status: "draft", transferId: id, jurisdiction: "NL" });
      // The officer completes it, a second officer approves it (four eyes), it is filed, and the PDF matches its hash.
      const reports = async (...args: string[]) => runCli(["reports", ...args, "--json"], { CARAVAN_DB: db });
      const rid = report.body.data.id;
      const narrative = join(dir, "narrative.txt");
      await Bun.write(narrative, "The beneficiary named by the counterparty VASP matches a sanctions list entry (Viktor Krasnov); the officer confirmed the match against the date of birth and rejected the transfer.");
      const fields = resolveReportType("NL").fields.filter((f) => f.required).flatMap((f) => ["--field", `${f.key}=value of ${f.key}`]);
      expect((await reports("edit", "--id", rid, "--narrative-file", narrative, ...fields, "--member", ownerEmail)).code).toBe(0);
      expect((await reports("submit", "--id", rid, "--member", ownerEmail)).code).toBe(0);
      expect((await reports("approve", "--id", rid, "--member", officerEmail)).code).toBe(0);
      expect((await reports("file", "--id", rid, "--reference", "FIU-NL-2026-0042", "--member", officerEmail)).code).toBe(0);
      const filed = await call(`/api/v2/reports/${rid}`, { key: owner });
      expect(filed.body.data).toMatchObject({ status: "filed", filingReference: "FIU-NL-2026-0042", filingReady: true });
      expect(filed.body.data.filingDeadline.isOverdue).toBe(false);
      const pdf = await fetch(`${S.url}/api/v2/reports/${rid}/download?format=pdf`, { headers: { "x-api-key": owner } });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(pdf.headers.get("content-disposition")).toBe(`attachment; filename=${filed.body.data.reportNumber}.pdf`);
      const bytes = new Uint8Array(await pdf.arrayBuffer());
      const hash = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
      expect(pdf.headers.get("x-content-sha256")).toBe(hash);
      expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    });
  });

  test("a resolution racing the transfer's own change: the transfer is rejected once, and the case history says what happened", async () => {
    await withRules([nameRule()], async () => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      expect((await settle(id)).state).toBe("held");
      const [c] = await caseOf(id);
      // The officer's API reject and the case's approval reach the transfer's actor in either order.
      const [rejected, resolved] = await Promise.all([
        call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "OTHER" } }),
        call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "approved" } }),
      ]);
      expect(resolved.status).toBe(200);
      const t = await settle(id, ["held", "queued", "processing", "exchanging"]);
      if (rejected.status === 200) {
        // The reject won: the transfer stays rejected; a queued resumption found it so and says so in the case.
        expect(t.state).toBe("rejected");
        expect(t.rejection.reason).toBe("OTHER");
        if (resolved.body.meta.transferAction?.result === "queued") expect((await history(c.id, "transfer_not_updated")).map((h) => h.newValue)).toEqual(["resume_refused"]);
        else expect(resolved.body.meta.transferAction).toBeNull();
      } else {
        // The resumption won: the reject found a transfer no longer held and moving on.
        expect(resolved.body.meta.transferAction).toEqual({ transferId: id, result: "queued" });
        expect((await history(c.id, "transfer_updated")).map((h) => h.newValue)).toEqual(["queued"]);
      }
      const events = new Database(db, { readonly: true });
      try {
        const types = (events.query("SELECT type FROM events WHERE entity_id = ?").all(id) as { type: string }[]).map((e) => e.type);
        expect(types.filter((x) => x === "transfer.rejected").length).toBeLessThanOrEqual(1);
      } finally {
        events.close();
      }
    });
  });

  test("a resolution that finds the transfer no longer held moves nothing: transferAction null", async () => {
    await withRules([nameRule()], async () => {
      const id = await create(VIKTOR_ADDR, [VIKTOR]);
      expect((await settle(id)).state).toBe("held");
      const [c] = await caseOf(id);
      expect((await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "reject", status: "rejected", reason: "SANCTIONS_MATCH" } })).status).toBe(200);
      const r = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "approved" } });
      expect(r.status).toBe(200);
      expect(r.body.meta.transferAction).toBeNull();
      expect((await detail(id)).state).toBe("rejected");
    });
  });

  function audits(entityId: string): { action: string; member_id: string | null; detail: Record<string, unknown> }[] {
    const d = new Database(db, { readonly: true });
    try {
      return (d.query("SELECT action, member_id, detail FROM audit_log WHERE entity_id = ? ORDER BY seq").all(entityId) as { action: string; member_id: string | null; detail: string }[]).map((a) => ({ ...a, detail: JSON.parse(a.detail ?? "{}") }));
    } finally {
      d.close();
    }
  }

  test("a screening that could not run is never a hit: compliance_review titled so, the event and history say unscreened; approval screens again", async () => {
    await withRules([nameRule({ severity: "high" })], async () => {
      vc.setFault({ kind: "status", status: 503 });
      let id = "";
      try {
        id = await create(VIKTOR_ADDR, [VIKTOR]); // a watch-listed name: a hit had the vendor answered
        const t = await settle(id);
        expect(t.state).toBe("held");
        expect(t.compliance.status).toBe("pending");
        expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_c", status: "error" });
      } finally {
        vc.setFault(null);
      }
      const [c, ...more] = await caseOf(id);
      expect(more).toEqual([]);
      expect(c).toMatchObject({ type: "compliance_review", category: "sanctions", status: "open" });
      expect((c as unknown as { title: string }).title).toMatch(/^Screening could not run: transfer held unscreened at precheck/);
      const done = events(id).filter((e) => e.type === "compliance.screening_complete");
      expect(done.at(-1)!.data).toMatchObject({ outcome: "held", unscreened: true });
      expect(done.at(-1)!.data.matchedRules[0]).toMatchObject({ unscreened: true, category: "sanctions" });
      expect(audits(id).find((a) => a.action === "transfer.held")!.detail).toMatchObject({ unscreened: true });
      // Approving without confirming screens it again first: the vendor answers now, the name is a hit, held again.
      const before = (await detail(id)).compliance.total;
      const r = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "approved" } });
      expect(r.status).toBe(200);
      expect(r.body.meta.transferAction).toEqual({ transferId: id, result: "queued" });
      let again = await detail(id);
      for (let i = 0; i < 300 && again.compliance.total === before; i++) {
        await Bun.sleep(100);
        again = await detail(id);
      }
      again = await settle(id);
      expect(again.compliance.total).toBeGreaterThan(before);
      expect(again.state).toBe("held");
      const cases = await caseOf(id);
      const second = cases.find((x) => x.id !== c.id) as unknown as { type: string; title: string } | undefined;
      expect(second).toMatchObject({ type: "sanctions_hit" });
      expect(second!.title).not.toMatch(/could not run/);
      expect(audits(id).find((a) => a.action === "transfer.resumed")!.detail).toMatchObject({ screenAgain: true });
    });
  });

  test("approving unscreened needs approveUnscreened (approved only); it goes on without screening, audited with the officer", async () => {
    await withRules([nameRule()], async () => {
      vc.setFault({ kind: "status", status: 503 });
      try {
        const id = await create(BENE_ADDR);
        expect((await settle(id)).state).toBe("held");
        const [c] = await caseOf(id);
        const bad = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "rejected", approveUnscreened: true } });
        expect(bad.status).toBe(422);
        expect(bad.body.details.issues[0].path).toBe("approveUnscreened");
        const before = (await detail(id)).compliance.total;
        const r = await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "approved", approveUnscreened: true, resolutionNote: "Vendor down; customer known" } });
        expect(r.status).toBe(200);
        const t = await settle(id, ["held", "queued", "processing", "exchanging"]);
        expect(t.state).toBe("awaiting_counterparty");
        expect(t.compliance.total).toBe(before); // not screened again
        const resumed = audits(id).find((a) => a.action === "transfer.resumed")!;
        expect(resumed.detail).toMatchObject({ unscreened: true });
        expect(resumed.member_id).toMatch(/^mem_/);
        expect(audits(c.id).find((a) => a.action === "case.resolved")!.detail).toMatchObject({ approveUnscreened: true });
      } finally {
        vc.setFault(null);
      }
    });
  });

  test("rejecting a hold whose screening did not run drafts a report saying screening was incomplete, not that a rule fired", async () => {
    await withRules([nameRule()], async () => {
      vc.setFault({ kind: "status", status: 503 });
      try {
        const id = await create(VIKTOR_ADDR, [VIKTOR]);
        expect((await settle(id)).state).toBe("held");
        const [c] = await caseOf(id);
        expect((await call(`/api/v2/cases/${c.id}/resolve`, { method: "POST", key: owner, json: { resolution: "rejected" } })).status).toBe(200);
        const [drafted] = await history(c.id, "str_drafted");
        expect(drafted).toBeDefined();
        const rep = await call(`/api/v2/reports/${drafted.newValue}`, { key: owner });
        expect(rep.status).toBe(200);
        const indicators = JSON.stringify(rep.body.data.riskIndicators);
        expect(indicators).toContain("screening_incomplete");
        expect(indicators).not.toContain("sanctions_hit");
        expect(indicators).not.toContain("rule:");
        expect(indicators).not.toMatch(/Screening rule .* fired/);
      } finally {
        vc.setFault(null);
      }
    });
  });

  test("the valuation route gives the value in fiat the threshold decision used: amount, currency, rate, source, time", async () => {
    const id = await create(BENE_ADDR);
    const r = await call(`/api/v2/transfers/${id}/valuation`, { key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ transferId: id, amount: "1", asset: "ETH" });
    expect(r.body.data.valuation).toMatchObject({ currency: "USD", fxRateId: expect.stringMatching(/^fx/) });
    expect(Number(r.body.data.valuation.value)).toBe(Number(r.body.data.valuation.rate)); // 1 ETH
    expect(Number(r.body.data.valuation.value)).toBeGreaterThan(0);
    expect(r.body.data.valuation.source.length).toBeGreaterThan(0);
    expect(r.body.data.valuation.rateAsOf).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.body.data.threshold).toMatchObject({ currency: "USD" });
    expect((await call(`/api/v2/transfers/trf_${"0".repeat(26)}/valuation`, { key: owner })).body.code).toBe("TRANSFER_NOT_FOUND");
    expect((await call(`/api/v2/transfers/${id}/valuation`, { key: analyst })).status).toBe(200);
  });
});
