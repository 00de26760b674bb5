// provider_e faults and sweeps end to end (Part 3 "provider_e transfers", "provider_e callbacks", Limits): held
// incoming decisions re-checked, PERMISSION_BINDING_MISMATCH, TXID_BINDING_MISMATCH, the 2 MiB callback limit, the
// expiry sweep, and the polling sweep asking the bridge to resend a lost permission (`/bridge/transaction/retry`).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { withDb } from "../support/db.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";
import { randomPrivateKey, signObject } from "../../src/adapters/providers/provider_e/crypto.ts";
import { orderedPermission } from "../../src/adapters/providers/provider_e/wire.ts";

setDefaultTimeout(60_000);

const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const LOST_ADDR = "0x" + "8b".repeat(20);
const QUIET_ADDR = "0x" + "6d".repeat(20);
const dir = tempDir();
let s: Suite;
let lostId: string;

const sql = (q: string, ...args: (string | number)[]) => withDb(s.db, (d) => void d.query(q).run(...args));
const byExternal = async (externalId: string) => (await s.call(`/api/v2/transfers?direction=incoming&search=${externalId}`, { key: s.owner })).body.data[0];
const incoming = () => ({ from: "BENEFVASP", originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });

beforeAll(async () => {
  s = await startProviderESuite(dir, {
    allow: "BENEFVASP LOSTVASP QUIETVASP",
    bridge: {
      vasps: [
        { code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE_ADDR] },
        { code: "LOSTVASP", name: "Lost Exchange", addresses: [LOST_ADDR], losePermission: true },
        { code: "QUIETVASP", name: "Quiet Exchange", addresses: [QUIET_ADDR], decision: "none" },
      ],
    },
  });
});

afterAll(async () => {
  await s?.stop();
});

test("held incoming accept: refused (LOCAL_APPROVAL_REQUIRED) when the identity no longer matches; accepted once it does; the opposite decision → DECISION_CONFLICT", async () => {
  const rule = await s.call("/api/v2/rules", { method: "POST", key: s.owner, json: { name: "Review every counterparty", category: "aml", stage: "postcheck", action: "require_review" } });
  expect(rule.status).toBe(201);
  let id: string;
  let pid: string;
  try {
    const r = await s.bridge.sendPermissionRequest(incoming());
    expect(r.status).toBe(200);
    pid = r.transferId;
    id = (await byExternal(pid)).id;
    await s.until(id, (x) => x.state === "held");
  } finally {
    expect((await s.call(`/api/v2/rules/${rule.body.data.id}`, { method: "PATCH", key: s.owner, json: { isActive: false } })).status).toBe(200);
  }
  const identity = (persons: unknown) => s.call(`/api/v2/customers/${s.customerId}/travel-rule-identity`, { method: "PUT", key: s.owner, json: { status: "verified", persons } });
  expect((await identity([person("Smith", "Joan")])).status).toBe(200);
  const refused = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept" } });
  expect(refused.status).toBe(400);
  expect(refused.body.code).toBe("INVALID_REQUEST");
  expect(refused.body.error).toContain("LOCAL_APPROVAL_REQUIRED");
  expect(s.bridge.transfers.get(pid)!.data.permission_status).toBeNull();
  expect((await s.until(id, () => true)).state).toBe("held");
  expect((await identity([person("Doe", "Jane")])).status).toBe(200);
  const ok = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept" } });
  expect(ok.status).toBe(200);
  expect(ok.body.data.state).toBe("awaiting_counterparty");
  expect(s.bridge.transfers.get(pid)!.data.permission_status).toBe("ACCEPTED");
  const conflict = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "reject", status: "rejected", reason: "OTHER" } });
  expect(conflict.status).toBe(400);
  expect(conflict.body.error).toContain("DECISION_CONFLICT");
});

test("a permission lost on the way: the polling sweep reads the status (ACCEPTED, not received) and asks the bridge to resend", async () => {
  lostId = await s.create(LOST_ADDR);
  const t = await s.until(lostId, (x) => x.state === "exchanging");
  const pid = t.cascade.externalId;
  for (let i = 0; i < 100 && s.bridge.transfers.get(pid)?.data.permission_status !== "ACCEPTED"; i++) await Bun.sleep(50);
  expect(s.bridge.transfers.get(pid)!.permissionDelivered).toBe(false);
  // Unchanged for five minutes (the sweep reads rows: the row is made older, nothing else).
  sql("UPDATE transfers SET updated_at = ? WHERE id = ?", new Date(Date.now() - 6 * 60_000).toISOString(), lostId);
  // The outcome is checked by the last test of the file (the sweep runs once a minute).
});

test("a permission whose decision the provider's signed status does not show → 400 PERMISSION_BINDING_MISMATCH; forged → 401; a wrong token → 404", async () => {
  const id = await s.create(QUIET_ADDR);
  const t = await s.until(id, (x) => x.state === "exchanging");
  const b = s.bridge.transfers.get(t.cascade.externalId)!;
  const url = new URL(b.callbackUrl!);
  const target = `${s.S.url}${url.pathname}${url.search}`;
  const quiet = s.bridge.vasps.get("QUIETVASP")!;
  const body = (key: string) => signObject(orderedPermission({ transfer_id: b.data.transfer_id, permission_status: "ACCEPTED", expire_date: Date.now() + 3600_000 }) as Record<string, unknown>, key);
  const post = async (u: string, v: unknown) => {
    const r = await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(v) });
    return { status: r.status, body: await r.json() };
  };
  expect(await post(target, body(quiet.privateKey))).toEqual({ status: 400, body: { error: "PERMISSION_BINDING_MISMATCH" } });
  expect(await post(target, body(randomPrivateKey()))).toEqual({ status: 401, body: { error: "INVALID_SIGNATURE" } });
  expect(await post(target.replace(/token=[^&]+/, "token=" + "0".repeat(40)), body(quiet.privateKey))).toEqual({ status: 404, body: { error: "UNKNOWN_TRANSFER" } });
  expect((await s.until(id, () => true)).state).toBe("exchanging");
  expect((await s.until(id, () => true)).status.theirs).not.toBe("accepted");
});

test("the expiry sweep: an open transfer past its expiry is held (verdict pending) and its transaction can no longer be reported", async () => {
  const id = await s.create(QUIET_ADDR);
  await s.until(id, (x) => x.state === "exchanging");
  sql("UPDATE transfers SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), id);
  const t = await s.until(id, (x) => x.state === "held", 400);
  const list = (await s.call(`/api/v2/transfers?search=${id}`, { key: s.owner })).body.data[0];
  expect(list.status).toBe("pending");
  expect(s.events(id).map((e) => e.type)).toContain("transfer.held");
  const r = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept", txHash: "0x" + "ab".repeat(32) } });
  expect(r.status).toBe(400);
  expect(t.state).toBe("held");
});

test("txid not matching the provider's signed status (txid, txid_signature) → 400 TXID_BINDING_MISMATCH, nothing changes", async () => {
  const r = await s.bridge.sendPermissionRequest(incoming());
  const id = (await byExternal(r.transferId)).id;
  await s.until(id, (x) => x.state === "awaiting_counterparty");
  const v = s.bridge.vasps.get("BENEFVASP")!;
  // Signed by the originator, but the bridge's status names no such transaction.
  const body = signObject({ transfer_id: r.transferId, txid: "0x" + "ee".repeat(32) }, v.privateKey);
  expect(await s.bridge.deliver("txid", body)).toEqual({ status: 400, body: { error: "TXID_BINDING_MISMATCH" } });
  expect((await s.until(id, () => true)).state).toBe("awaiting_counterparty");
});

test("callback body: 2 MiB is read, 2 MiB + 1 byte → 413 Body too large", async () => {
  const MiB2 = 2 * 1024 * 1024;
  const head = `{"transfer_id":"${"0".repeat(64)}","txid":"x","signature":"00","pad":"`;
  const tail = `"}`;
  const exact = head + "a".repeat(MiB2 - head.length - tail.length) + tail;
  expect(exact.length).toBe(MiB2);
  expect(await s.bridge.deliver("txid", null, exact)).toEqual({ status: 404, body: { error: "UNKNOWN_TRANSFER" } });
  const over = head + "a".repeat(MiB2 - head.length - tail.length + 1) + tail;
  expect(await s.bridge.deliver("txid", null, over)).toEqual({ status: 413, body: { error: "Body too large" } });
});

test(
  "…the polling sweep's retry request reached the bridge and the resent permission moved the transfer to awaiting_counterparty",
  async () => {
    const t = await s.until(lostId, (x) => x.state === "awaiting_counterparty", 800);
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    expect(s.bridge.requests.some((r) => r.path === "/bridge/transaction/retry" && r.status === 200)).toBe(true);
  },
  90_000,
);
