// provider_a: the counterparty's data screened at postcheck end to end (Part 3 "provider_a transfers", Outgoing 3 and
// Incoming 5; Part 2 "Rule", "Case"): a real Caravan server, the sandbox provider_a network and the sandbox
// screening_c vendor over real HTTP, a real rule reading `content.data.total_hits`, the case opened by the hold and
// its resolution; and a PATCH reject's `details` kept sealed on the rejection (Part 1).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { CARAVAN, ETH, newWebhookSecret, providerAHelpers } from "../support/provider_a.ts";
import { JANE, RICHARD, VIKTOR, person } from "../support/persons.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startProviderAPeer, type ProviderAPeer, type SandboxVaspA } from "../../src/sandbox/provider_a/index.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import type { Person } from "../../src/domain/ivms101/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa-screening.db");
let S: ChildServer;
let peer: ProviderAPeer;
let vc: ScreeningCSandbox;
const { cli, newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
const { customer, wallet, createOutgoing, get, until, patch, incomingId } = providerAHelpers({ call, cli }, () => ({ owner, ownerEmail }));
let analyst: string;
let C: string;
let jane: string;
const SECRET = newWebhookSecret();

const RITA = person("Recipient", "Rita");

const A = {
  origin: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  bene: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  watched: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  mine: "0xa1e4380a3b1f749673e270229993ee55f35663b4",
  sender: "0x0000000000000000000000000000000000000abc",
};

const vasp = (did: string, behaviour: SandboxVaspA["behaviour"], address: string, persons: Person[]): SandboxVaspA => ({
  did,
  name: did.slice(8),
  behaviour,
  customers: { c: persons },
  wallets: [{ address, customer: "c" }],
});

const nameRule = (action: "require_review" | "block") => ({
  name: `Watch-list name at postcheck (${action})`,
  category: "sanctions",
  stage: "postcheck",
  action,
  condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action }] },
});

/** Creates a rule for the duration of `fn`, then deletes it (rules apply to every transfer of the environment). */
async function withRule(action: "require_review" | "block", fn: () => Promise<void>) {
  const r = await call("/api/v2/rules", { method: "POST", key: owner, json: nameRule(action) });
  expect(r.status).toBe(201);
  try {
    await fn();
  } finally {
    await call(`/api/v2/rules/${r.body.data.id}`, { method: "DELETE", key: owner });
  }
}

async function create(beneficiaryAddress: string, beneficiaryPersons: Person[]) {
  // Not the verified identity: provider_a sends (and screening pairs with) the identity, never this.
  return createOutgoing({ beneficiaryAddress, originatorCustomerId: jane, originatorPersons: [person("Other", "Name")], beneficiaryPersons, extra: { originatorAddress: A.origin } });
}

async function caseOf(id: string): Promise<{ id: string; type: string; status: string }> {
  for (let i = 0; i < 100; i++) {
    const c = (await call("/api/v2/cases?limit=100", { key: owner })).body.data.find((x: { transferIds: string[] }) => x.transferIds.includes(id));
    if (c) return c;
    await Bun.sleep(100);
  }
  throw new Error(`no case for ${id}`);
}

const resolve = (caseId: string, resolution: "approved" | "rejected") =>
  call(`/api/v2/cases/${caseId}/resolve`, { method: "POST", key: owner, json: { resolution, resolutionNote: "reviewed" } });
const calls = (route: string, txId: string) => peer.requests.filter((q) => q.route === route && q.path.includes(encodeURIComponent(txId))).length;
const searched = (from: number) => vc.requests.slice(from).filter((r) => r.path === "/searches").map((r) => (r.body as { search_term: string }).search_term).sort();

const incoming = (originatorPersons: Person[], beneficiaryPersons?: Person[]) =>
  peer.sendIncoming({ from: "did:web:orig.example", to: CARAVAN, asset: ETH, amount: "2", beneficiaryAddress: A.mine, originatorAddress: A.sender, originatorPersons, beneficiaryPersons });

beforeAll(async () => {
  vc = await startScreeningCSandbox();
  peer = await startProviderAPeer({
    vasps: [
      vasp("did:web:bene.example", "authorize", A.bene, [RICHARD]),
      vasp("did:web:watched.example", "authorize", A.watched, [VIKTOR]),
      vasp("did:web:orig.example", "authorize", A.sender, [RICHARD]),
    ],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  analyst = (await newKey("--env", "test", "--role", "analyst")).key;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    CARAVAN_PROVIDER_A_AUTH_URL: peer.url,
    CARAVAN_PROVIDER_A_API_ORIGINS: peer.url,
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
  });
  const credentials = { apiUrl: peer.url, clientId: "caravan-client", clientSecret: "s3cret", vaspDid: CARAVAN, webhookSecret: SECRET };
  for (const key of [owner, live]) {
    expect((await call("/api/v2/providers/provider_a", { method: "PUT", key, json: { credentials } })).status).toBe(201);
    expect((await call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials: { apiKey: SANDBOX_API_KEY } } })).status).toBe(201);
  }
  for (const path of ["/api/v2/providers/provider_a", "/api/v2/integrations/screening_c"]) expect((await call(path, { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  C = (await call("/api/v2/integrations/screening_c", { key: owner })).body.data.id;
  expect(C).toMatch(/^int_/);
  const providerId = String((await call("/api/v2/providers/provider_a", { key: owner })).body.data.callbackPaths[0].path).split("/").at(-1)!;
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "caravan-client", clientSecret: "s3cret", webhookUrl: `${S.url}/api/system/trp/provider_a/test/${providerId}`, webhookSecret: SECRET });
  jane = await customer("Jane Doe", "verified", [JANE]);
  await wallet(jane, A.origin, false);
  await wallet(await customer("Rita Recipient", "verified", [RITA]), A.mine);
});

afterAll(async () => {
  await S?.stop();
  await Promise.all([peer?.stop(), vc?.stop()]);
});

describe("outgoing: the beneficiary VASP's data screened at postcheck", () => {
  test("a clean beneficiary: screened with the customer's verified identity (not the request's originator), approved, authorized, accepted", async () => {
    await withRule("require_review", async () => {
      const c0 = vc.requests.length;
      const id = await create(A.bene, [RICHARD]);
      const t = await until(id, ["accepted"]);
      expect(t.compliance.status).toBe("approved");
      expect(t.compliance.checks.map((c: { stage: string; integration: string }) => [c.stage, c.integration])).toEqual([["postcheck", "screening_c"]]);
      expect(searched(c0)).toEqual(["Jane Doe", "Richard Roe"]);
      expect(calls("authorize", t.cascade.externalId)).toBe(1);
    });
  });

  test("review: held, verdict pending, a case; approving the case → awaiting_counterparty without calling the provider; the next event authorizes → accepted", async () => {
    await withRule("require_review", async () => {
      const c0 = vc.requests.length;
      const id = await create(A.watched, [RICHARD]);
      const held = await until(id, ["held"]);
      expect(held.compliance.status).toBe("pending");
      expect(held.compliance.checks[0]).toMatchObject({ integration: "screening_c", stage: "postcheck", status: "success" });
      // The beneficiary VASP's own data (its customer), paired with the verified identity.
      expect(searched(c0)).toEqual(["Jane Doe", "Viktor Krasnov"]);
      const txId = held.cascade.externalId;
      expect(calls("authorize", txId)).toBe(0);
      const k = await caseOf(id);
      expect(k.status).toBe("open");
      expect((await resolve(k.id, "approved")).status).toBe(200);
      const moved = await until(id, ["awaiting_counterparty"]);
      expect(moved.compliance.status).toBe("approved");
      expect(calls("authorize", txId)).toBe(0);
      expect(peer.vaspAgent(txId, "originator")!.status).toBe("PROCESSING");
      // Authorized at the next event (screened once: the same data is not screened again).
      const checks = moved.compliance.total;
      expect(await peer.notify(txId)).toBe(200);
      const t = await until(id, ["accepted"]);
      expect(calls("authorize", txId)).toBe(1);
      expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
      expect(t.compliance.total).toBe(checks);
    });
  });

  test("block: held with verdict rejected, nothing sent; rejecting its case leaves it held (an outgoing provider_a transfer cannot be rejected)", async () => {
    await withRule("block", async () => {
      const id = await create(A.watched, [VIKTOR]);
      const held = await until(id, ["held"]);
      expect(held.compliance.status).toBe("rejected");
      const txId = held.cascade.externalId;
      const k = await caseOf(id);
      const r = await resolve(k.id, "rejected");
      expect(r.status).toBe(200);
      // Let the case's outcome reach the transfer (if any), then: still held, nothing sent to the provider.
      await Bun.sleep(300);
      expect((await get(id)).state).toBe("held");
      expect(calls("authorize", txId) + calls("reject", txId)).toBe(0);
      const accept = await patch(id, { action: "accept", txHash: "0x" + "12".repeat(32) });
      expectError(accept, 400, "INVALID_REQUEST");
      expect(accept.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
      // Status table: a flag afterwards holds with verdict pending, but a rejected verdict stays.
      expect(await peer.update(txId, { status: "FLAGGED" })).toBe(200);
      const flagged = await get(id);
      expect({ state: flagged.state, verdict: flagged.compliance.status }).toEqual({ state: "held", verdict: "rejected" });
    });
  });
});

describe("incoming: the originator screened at postcheck", () => {
  test("approved authorizes without an officer: screened with the verified identity (not the name the originating VASP sent) → accepted", async () => {
    await withRule("require_review", async () => {
      const c0 = vc.requests.length;
      const sent = await incoming([RICHARD], [person("RECIPIENT", "rita")]);
      expect(sent.status).toBe(200);
      const id = await incomingId(sent.id);
      const t = await until(id, ["accepted"]);
      expect(t.compliance.status).toBe("approved");
      expect(t.compliance.checks[0]).toMatchObject({ integration: "screening_c", stage: "postcheck" });
      expect(searched(c0)).toEqual(["Richard Roe", "Rita Recipient"]);
      expect(calls("authorize", sent.id)).toBe(1);
    });
  });

  test("pending holds (a case, nothing authorized); approving the case → awaiting_counterparty without calling the provider; the next event authorizes → accepted", async () => {
    await withRule("require_review", async () => {
      const sent = await incoming([VIKTOR]);
      const id = await incomingId(sent.id);
      const held = await until(id, ["held"]);
      expect(held.compliance.status).toBe("pending");
      // Steps 3–4 ran before the screening: the relationship is confirmed, our identity appended.
      expect(peer.relationships.some((r) => r.address?.toLowerCase() === A.mine.toLowerCase() && r.to === CARAVAN)).toBe(true);
      expect(calls("append", sent.id)).toBe(1);
      expect(calls("authorize", sent.id)).toBe(0);
      const k = await caseOf(id);
      expect((await resolve(k.id, "approved")).status).toBe(200);
      await until(id, ["awaiting_counterparty"]);
      expect(calls("authorize", sent.id)).toBe(0);
      expect(await peer.notify(sent.id)).toBe(200);
      const t = await until(id, ["accepted"]);
      expect(calls("authorize", sent.id)).toBe(1);
      expect(t.compliance.status).toBe("approved");
    });
  });

  test("rejected holds and sends nothing; accept is LOCAL_APPROVAL_REQUIRED; its case rejected leaves it held", async () => {
    await withRule("block", async () => {
      const sent = await incoming([VIKTOR]);
      const id = await incomingId(sent.id);
      const held = await until(id, ["held"]);
      expect(held.compliance.status).toBe("rejected");
      expect(calls("authorize", sent.id) + calls("reject", sent.id)).toBe(0);
      const accept = await patch(id, { action: "accept" });
      expectError(accept, 400, "INVALID_REQUEST");
      expect(accept.body.error).toBe("LOCAL_APPROVAL_REQUIRED");
      const k = await caseOf(id);
      const r = await resolve(k.id, "rejected");
      expect(r.status).toBe(200);
      await Bun.sleep(300);
      expect((await get(id)).state).toBe("held");
      expect(calls("authorize", sent.id) + calls("reject", sent.id)).toBe(0);
    });
  });

  test("a pending hold's case rejected: rejected at the provider (COMPLIANCE_POLICIES), then rejected", async () => {
    await withRule("require_review", async () => {
      const sent = await incoming([VIKTOR]);
      const id = await incomingId(sent.id);
      await until(id, ["held"]);
      expect((await resolve((await caseOf(id)).id, "rejected")).status).toBe(200);
      const t = await until(id, ["rejected"]);
      expect(t.rejection.reason).toBe("COMPLIANCE_POLICY");
      expect(peer.transfers.get(sent.id)!.rejectReason).toBe("COMPLIANCE_POLICIES");
    });
  });

  test("PATCH reject with details: sent without the details, kept sealed on the rejection, masked for an analyst, out of the audit log", async () => {
    await withRule("require_review", async () => {
      const sent = await incoming([VIKTOR]);
      const id = await incomingId(sent.id);
      await until(id, ["held"]);
      const details = `Confirmed match on the consolidated list ${crypto.randomUUID()}`;
      const r = await patch(id, { action: "reject", status: "rejected", reason: "SANCTIONS_MATCH", details });
      expect(r.status).toBe(200);
      expect(r.body.data.state).toBe("rejected");
      const rejectCall = peer.requests.filter((q) => q.route === "reject" && q.path.includes(encodeURIComponent(sent.id))).at(-1)!;
      expect(rejectCall.body).toEqual({ reason: "SANCTION_SCREENING" });
      expect((await get(id)).rejection).toEqual({ reason: "SANCTIONS_MATCH", details });
      const masked = await call(`/api/v2/transfers/${id}`, { key: analyst });
      expect(masked.body.data.rejection).toEqual({ reason: "SANCTIONS_MATCH", details: "***" });
      expect(JSON.stringify(masked.body)).not.toContain(details);
      const audit = await call(`/api/v2/audit-log?entityId=${id}&limit=200`, { key: owner });
      expect(audit.status).toBe(200);
      expect(audit.body.data.some((e: { action: string }) => e.action === "transfer.rejected")).toBe(true);
      expect(JSON.stringify(audit.body)).not.toContain(details);
    });
  });
});
