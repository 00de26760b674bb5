// provider_d incoming, giving up: a held incoming transfer's decision is POSTed to the originator's callback, which never
// accepts it (the sandbox peer answers 503 to every resolution). The POST is retried with backoff until the transfer
// expires; then Caravan stops, records `resolution_not_delivered` with the number of POSTs it made, and the transfer
// ends by the expiry rules: an approved one is `cancelled` by the expiry sweep, a rejected one stays `rejected`.
// The clock is the test's as in the other expiry tests: `expires_at` is moved into the past, the sweeps run every
// second (test/support/server.ts), the backoff's cadence is the flow's (2 s, doubling).
import { beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { type DSuite, providerDSuiteForFile, travelAddressOf, INCOMING_INQUIRY } from "../support/provider_d.ts";
import { withDb } from "../support/db.ts";

setDefaultTimeout(60_000);

const d = providerDSuiteForFile();
let travelAddress: string;
beforeAll(async () => {
  travelAddress = await travelAddressOf(d);
});
const inquiry = INCOMING_INQUIRY;

type Entry = { type: string; from: string; to: string; detail: Record<string, unknown> };
const history = (id: string): Entry[] => withDb(d.db, (db) => JSON.parse((db.query("SELECT history FROM transfers WHERE id = ?").get(id) as { history: string }).history));

/** An incoming inquiry held for review (acknowledged with {version}); its transfer. */
async function held(): Promise<{ s: Awaited<ReturnType<DSuite["peer"]["sendInquiry"]>>; id: string }> {
  const rule = await d.call("/api/v2/rules", { method: "POST", key: d.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
  try {
    const s = await d.peer.sendInquiry(travelAddress, inquiry);
    expect(s.answer).toEqual({ version: "3.2.1" });
    const list = (await d.call("/api/v2/transfers?direction=incoming&limit=100", { key: d.owner })).body.data as { id: string }[];
    for (const t of list) {
      const full = (await d.call(`/api/v2/transfers/${t.id}`, { key: d.owner })).body.data;
      if (full.cascade?.externalId === s.requestId) return { s, id: t.id };
    }
    throw new Error("the held transfer was not found");
  } finally {
    await d.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: d.owner, json: { isActive: false } });
  }
}

/** Waits (bounded) until the transfer's history has an entry of this type. */
async function untilNoted(id: string, type: string): Promise<Entry> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const e = history(id).find((h) => h.type === type);
    if (e) return e;
    await Bun.sleep(100);
  }
  throw new Error(`no ${type} in ${JSON.stringify(history(id).map((h) => h.type))}; log tail:\n${d.S.output().slice(-3000)}`);
}

describe("provider_d: a decision the originator never accepts", () => {
  test("approved, retried until the transfer expires: resolution_not_delivered with the POSTs made, then cancelled by the expiry sweep; nothing delivered", async () => {
    const { s, id } = await held();
    const before = d.peer.callbackAttempts;
    d.peer.failCallbacks(1_000_000);
    const r = await d.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: d.owner, json: { action: "accept" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.state).toBe("awaiting_counterparty");
    // The first POST failed and a retry is scheduled; then the transfer's time runs out.
    const retrying = await untilNoted(id, "resolution_retrying");
    expect(retrying.detail.code).toBe("HTTP_503");
    withDb(d.db, (db) => db.query("UPDATE transfers SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), id));
    const gaveUp = await untilNoted(id, "resolution_not_delivered");
    const made = d.peer.callbackAttempts - before;
    expect(made).toBeGreaterThanOrEqual(1);
    expect(gaveUp.detail.attempts).toBe(made);
    expect(history(id).some((h) => h.type === "resolution_delivered")).toBe(false);
    expect(s.resolution).toBeNull();
    const t = await d.until(id, (x) => x.state === "cancelled");
    expect(history(id).map((h) => h.type)).toContain("expired");
    expect(t.status.ours).toBe("accepted");
    d.peer.failCallbacks(0);
  });

  test("rejected, retried until the transfer expires: resolution_not_delivered, and the transfer stays rejected", async () => {
    const { s, id } = await held();
    const before = d.peer.callbackAttempts;
    d.peer.failCallbacks(1_000_000);
    const r = await d.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: d.owner, json: { action: "reject", status: "rejected", reason: "COMPLIANCE_POLICY" } });
    expect(r.status, r.text).toBe(200);
    await untilNoted(id, "resolution_retrying");
    withDb(d.db, (db) => db.query("UPDATE transfers SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), id));
    const gaveUp = await untilNoted(id, "resolution_not_delivered");
    expect(gaveUp.detail.attempts).toBe(d.peer.callbackAttempts - before);
    expect(s.resolution).toBeNull();
    const t = (await d.call(`/api/v2/transfers/${id}`, { key: d.owner })).body.data;
    expect(t.state).toBe("rejected");
    expect(t.rejection.reason).toBe("COMPLIANCE_POLICY");
    d.peer.failCallbacks(0);
  });
});
