// PATCH /api/v2/transfers/:id under concurrency: an action that races another on the same transfer takes effect once.
// The others are refused with what is true: the spec's code when the transfer's state no longer takes the action
// (INVALID_TRANSFER_STATE for a retry, INVALID_REQUEST otherwise), else 409 CONFLICT (the transfer changed while the
// request waited). With one Idempotency-Key every repeat gets the first answer.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";
import { PATH } from "../../src/adapters/providers/provider_e/wire.ts";
import type { Answer } from "../support/api.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
let s: Suite;
const N = 50;
/** Outgoing transfers to this address are held for review before they are sent (a rule on the field alone). */
const HOLD_ADDR = "0x" + "ab".repeat(20);

const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

beforeAll(async () => {
  s = await startProviderESuite(dir, { allow: "BENEFVASP", bridge: { vasps: [{ code: "BENEFVASP", name: "Bene Exchange", addresses: ["0x" + "22".repeat(20)] }] }, serverEnv: { CARAVAN_RATE_LIMITS: "company=1000000/60" } });
  const rule = await s.call("/api/v2/rules", {
    method: "POST",
    key: s.owner,
    json: { name: "Hold one address", category: "aml", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", action: "require_review", field: "beneficiaryAddress", operator: "eq", value: HOLD_ADDR }] } },
  });
  if (rule.status !== 201) throw new Error(rule.text);
}, 120_000);

afterAll(async () => {
  await s?.stop();
});

/** An outgoing transfer held before it is sent: a retry queues it and the same rule holds it again at once. */
async function heldTransfer(): Promise<string> {
  const id = await s.create(HOLD_ADDR);
  await s.until(id, (x) => x.state === "held");
  return id;
}

/** An incoming provider_e transfer held for review with its verdict pending (a postcheck rule held it). */
async function heldIncoming(): Promise<string> {
  const rule = await s.call("/api/v2/rules", { method: "POST", key: s.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
  expect(rule.status).toBe(201);
  try {
    const r = await s.bridge.sendPermissionRequest({ from: "BENEFVASP", originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });
    expect(r.status).toBe(200);
    const id = (await s.call(`/api/v2/transfers?direction=incoming&search=${r.transferId}`, { key: s.owner })).body.data[0].id;
    await s.until(id, (x) => x.state === "held");
    return id;
  } finally {
    expect((await s.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: s.owner, json: { isActive: false } })).status).toBe(200);
  }
}

const patch = (id: string, json: unknown, headers: Record<string, string> = {}) => s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json, headers });
const decisionsSent = () => s.bridge.requests.filter((r) => r.path === PATH.permission).length;

/** The audit entries of one action on the transfer, read from the database file. */
function audited(id: string, action: string): number {
  const d = new Database(s.db, { readonly: true });
  try {
    return (d.prepare("SELECT count(*) AS n FROM audit_log WHERE entity_id = ? AND action = ?").get(id, action) as { n: number }).n;
  } finally {
    d.close();
  }
}

/** Waits until the transfer is no longer queued (a retried transfer is queued, then held by the same rule). */
async function settles(id: string): Promise<string> {
  return (await s.until(id, (x) => x.state !== "queued")).state;
}

const tally = (rs: Answer[]) => {
  const t: Record<string, number> = {};
  for (const r of rs) {
    const k = r.status === 200 ? "200" : `${r.status} ${r.body?.code}`;
    t[k] = (t[k] ?? 0) + 1;
  }
  return t;
};

test(`${N} concurrent retries of one held transfer: one takes effect per hold, the others are refused (409 CONFLICT or 400 INVALID_TRANSFER_STATE)`, async () => {
  const id = await heldTransfer();
  const rs = await Promise.all(Array.from({ length: N }, () => patch(id, { action: "retry", reason: "documents received" })));
  const t = tally(rs);
  for (const k of Object.keys(t)) expect(["200", "409 CONFLICT", "400 INVALID_TRANSFER_STATE"]).toContain(k);
  for (const r of rs.filter((r) => r.status === 409)) expect(r.body.error).toContain("changed while this retry waited");
  expect(await settles(id)).toBe("held");
  expect(t["200"]).toBe(audited(id, "transfer.retried"));
  // One retry per hold: the retried transfer is held again at once, and a request read only after that new hold
  // decides the new one (see the mixed race below).
  expectOneDecisionPerHold(id);
});

test(`${N} concurrent rejects of one held transfer: one takes effect, the others are refused (400 INVALID_REQUEST: it is rejected)`, async () => {
  const id = await heldTransfer();
  const rs = await Promise.all(Array.from({ length: N }, () => patch(id, { action: "reject", status: "rejected", reason: "HIGH_RISK" })));
  const t = tally(rs);
  expect(t["200"]).toBe(1);
  for (const k of Object.keys(t)) expect(["200", "409 CONFLICT", "400 INVALID_REQUEST"]).toContain(k);
  expect(audited(id, "transfer.rejected")).toBe(1);
});

test(`${N} concurrent accepts of one held incoming transfer: one decision is sent to the provider, the others are refused`, async () => {
  const id = await heldIncoming();
  const before = decisionsSent();
  const rs = await Promise.all(Array.from({ length: N }, () => patch(id, { action: "accept" })));
  const t = tally(rs);
  expect(t["200"]).toBe(1);
  for (const k of Object.keys(t)) expect(["200", "409 CONFLICT", "400 INVALID_REQUEST"]).toContain(k);
  expect(decisionsSent()).toBe(before + 1);
});

/**
 * Between two decisions (retried, rejected) of one transfer its audit trail shows a new hold, and the first hold got
 * one: racing requests read in one state take effect once.
 */
function expectOneDecisionPerHold(id: string): void {
  const trail = auditTrail(id).filter((a) => a === "transfer.held" || a === "transfer.retried" || a === "transfer.rejected");
  const firstHold = trail.indexOf("transfer.held");
  let decisions = 0;
  let total = 0;
  for (const a of trail.slice(firstHold + 1)) {
    if (a === "transfer.held") decisions = 0;
    else (total += 1), expect({ decisionsOnOneHold: ++decisions }).toEqual({ decisionsOnOneHold: 1 });
  }
  expect(total).toBeGreaterThanOrEqual(1);
}

/** The transfer's audit actions in commit order. */
function auditTrail(id: string): string[] {
  const d = new Database(s.db, { readonly: true });
  try {
    return (d.prepare("SELECT action FROM audit_log WHERE entity_id = ? ORDER BY seq").all(id) as { action: string }[]).map((r) => r.action);
  } finally {
    d.close();
  }
}

test(`a retry and a reject racing on one held transfer: exactly one of them takes effect on that hold`, async () => {
  const id = await heldTransfer();
  const rs = await Promise.all(
    Array.from({ length: N }, (_, i) => (i % 2 === 0 ? patch(id, { action: "retry", reason: "documents received" }) : patch(id, { action: "reject", status: "rejected", reason: "HIGH_RISK" }))),
  );
  const effects = rs.filter((r) => r.status === 200).length;
  expect(effects).toBe(audited(id, "transfer.retried") + audited(id, "transfer.rejected"));
  // One decision per hold. A retry screens the transfer again and the same rule holds it again within milliseconds;
  // a request the server reads only after that new hold (a loaded machine spreads the 50 arrivals) meets a new hold,
  // and deciding it is a second decision, not a race. So between any two decisions the trail shows a new hold, and
  // the first hold gets exactly one.
  expectOneDecisionPerHold(id);
});

test(`${N} concurrent retries with one Idempotency-Key: one takes effect and every answer is the first one`, async () => {
  const id = await heldTransfer();
  const idem = `retry-${hex(6)}`;
  const rs = await Promise.all(Array.from({ length: N }, () => patch(id, { action: "retry", reason: "documents received" }, { "Idempotency-Key": idem })));
  expect(tally(rs)).toEqual({ "200": N });
  expect(new Set(rs.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
  expect(rs.filter((r) => r.body.meta.idempotent === true).length).toBe(N - 1);
  expect(await settles(id)).toBe("held");
  expect(audited(id, "transfer.retried")).toBe(1);
  // Later, on the transfer held again: the same key is still the first retry's answer; a new key retries again.
  const again = await patch(id, { action: "retry", reason: "documents received" }, { "Idempotency-Key": idem });
  expect({ status: again.status, data: again.body.data, idempotent: again.body.meta.idempotent }).toEqual({ status: 200, data: rs[0].body.data, idempotent: true });
  const other = await patch(id, { action: "reject", status: "rejected", reason: "HIGH_RISK" }, { "Idempotency-Key": idem });
  expect({ status: other.status, code: other.body.code }).toEqual({ status: 409, code: "CONFLICT" });
  const fresh = await patch(id, { action: "retry", reason: "second look" }, { "Idempotency-Key": `retry-${hex(6)}` });
  expect(fresh.status).toBe(200);
  expect(audited(id, "transfer.retried")).toBe(2);
});
