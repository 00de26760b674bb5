// provider_e end to end: a real Caravan server and the sandbox Sygna-style bridge over real HTTP, with real secp256k1
// signatures and ECIES (Part 3 "provider_e transfers", the beneficiary VASP search, "provider_e callbacks").
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, OUR_CODE, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { JANE, RICHARD, person } from "../support/persons.ts";
import type { ProviderEBridge } from "../../src/sandbox/provider_e/index.ts";
import { publicKeyOf, randomPrivateKey, signObject } from "../../src/adapters/providers/provider_e/crypto.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const TWIN_ADDR = "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB";
const NOBODY_ADDR = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb";
const REJECT_ADDR = "0x" + "7a".repeat(20);
const LOST_ADDR = "0x" + "8b".repeat(20);
const ALLOW = "BENEFVASP SLOWVASP DENYVASP TWINVASP1 TWINVASP2 REJECTVASP LOSTVASP";

// The suite: the sandbox bridge with these VASPs, a real server configured for it (provider_e saved with ALLOW as its
// discovery list, enabled with a live key), a verified customer with a verified wallet at ORIGIN_ADDR.
let P: Suite;
let bridge: ProviderEBridge;
let owner: string;
let providerId: string;
const call: Suite["call"] = (...a) => P.call(...a);
const create = (addr: string, extra: Record<string, unknown> = {}) => P.create(addr, extra);
const until = (id: string, done: (t: any) => boolean) => P.until(id, done);
const saveSettings = (extra: Record<string, string> = {}) => P.saveSettings(extra);

beforeAll(async () => {
  P = await startProviderESuite(dir, {
    allow: ALLOW,
    bridge: {
      vasps: [
        { code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE_ADDR] },
        { code: "SLOWVASP", name: "Slow Exchange", behaviour: "slow", delayMs: 800 },
        { code: "DENYVASP", name: "Deny Exchange", behaviour: "deny", addresses: [BENE_ADDR] },
        { code: "TWINVASP1", name: "Twin One", addresses: [TWIN_ADDR] },
        { code: "TWINVASP2", name: "Twin Two", addresses: [TWIN_ADDR] },
        { code: "REJECTVASP", name: "Reject Exchange", addresses: [REJECT_ADDR], decision: "REJECTED" },
        { code: "LOSTVASP", name: "Lost Exchange", addresses: [LOST_ADDR] },
        { code: "SILENTVASP", name: "Silent Exchange", behaviour: "silent" },
        { code: "FORGEVASP", name: "Forge Exchange", behaviour: "forge", addresses: [NOBODY_ADDR] },
      ],
    },
  });
  ({ bridge, owner, providerId } = P);
  // The provider's ID as its callback paths name it (Part 3: listed once the provider is first saved).
  expect(providerId).not.toBe("");
});

afterAll(async () => {
  await P?.stop();
});

describe("settings and connection", () => {
  test("invalid values → 422 INVALID_FIELDS with details.fields", async () => {
    const r = await call("/api/v2/providers/provider_e", { method: "PUT", key: owner, json: { credentials: { privateKey: "xyz", bridgePublicKey: "05ab", callbackBaseUrl: "http://x.example/path" } } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("INVALID_FIELDS");
    expect(r.body.details.fields).toEqual(expect.arrayContaining(["privateKey", "bridgePublicKey", "callbackBaseUrl"]));
  });

  test("the connection test reads the signed directory with x-api-key and finds our code and key", async () => {
    const before = bridge.requests.length;
    const r = await call("/api/v2/providers/provider_e/test", { method: "POST", key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
    // This test read the directory at least once, and every read carried the saved key.
    const reads = bridge.requests.slice(before).filter((q) => q.path === "/bridge/vasp");
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((q) => q.apiKey)).toEqual(reads.map(() => "sygna-test-key"));
  });

  test("a directory signed with another key, or stale, fails the connection test", async () => {
    for (const fault of ["forged", "stale"] as const) {
      bridge.setDirectoryFault(fault);
      const r = await call("/api/v2/providers/provider_e/test", { method: "POST", key: owner });
      expect(r.body.data.success).toBe(false);
      expect(r.body.data.error).toContain(fault === "forged" ? "DIRECTORY_SIGNATURE_INVALID" : "DIRECTORY_STALE");
    }
    bridge.setDirectoryFault(null);
  });
});

describe("outgoing", () => {
  let sent: string;

  test("discovery finds the one confirming VASP; the signed permission request is reserved and the transfer is exchanging then accepted", async () => {
    const id = await create(BENE_ADDR);
    sent = id;
    const t = await until(id, (x) => x.state === "awaiting_counterparty" || x.state === "failed" || x.state === "rejected");
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.cascade.provider).toBe("provider_e");
    expect(t.cascade.externalId).toMatch(/^[0-9a-f]{64}$/);
    expect(t.beneficiary.vaspId).toBe("BENEFVASP");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    const at = bridge.transfers.get(t.cascade.externalId)!;
    // The beneficiary VASP decrypted what Caravan encrypted for it: the verified identity as originator, the
    // request's beneficiary, the company profile as originating VASP.
    expect(at.privateInfo!.originator.accountNumber).toEqual([ORIGIN_ADDR]);
    expect(at.privateInfo!.beneficiary.beneficiaryPersons).toEqual([RICHARD]);
    expect(JSON.stringify(at.privateInfo!.originatingVASP)).toContain("Caravan Test VASP B.V.");
    // Sygna Bridge v2's nested transaction: each side's VASP code and addresses; the currency ID names coin and platform.
    expect(at.data.transaction).toEqual({
      originator_vasp: { vasp_code: OUR_CODE, addrs: [{ address: ORIGIN_ADDR, addr_extra_info: [] }] },
      beneficiary_vasp: { vasp_code: "BENEFVASP", addrs: [{ address: BENE_ADDR, addr_extra_info: [] }] },
      currency_id: "sygna:0x8000003c",
      amount: "1",
    });
    expect(at.callbackUrl).toStartWith(`https://caravan.example/api/system/trp/provider_e/test/${providerId}/permission?transfer=${id}&token=`);
  });

  test("accept with txHash: the signed report is sent, then accepted → completed; a different hash → TXID_CONFLICT", async () => {
    const hash = "0x" + "ab".repeat(32);
    const r = await call(`/api/v2/transfers/${sent}`, { method: "PATCH", key: owner, json: { action: "accept", txHash: hash } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ state: "completed", txHash: hash });
    const t = await until(sent, () => true);
    expect(bridge.transfers.get(t.cascade.externalId)!.data.txid).toBe(hash);
    const other = await call(`/api/v2/transfers/${sent}`, { method: "PATCH", key: owner, json: { action: "accept", txHash: "0x" + "cd".repeat(32) } });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe("INVALID_REQUEST");
  });

  test("two confirming VASPs → DISCOVERY_AMBIGUOUS: failed, no provider carries it", async () => {
    const id = await create(TWIN_ADDR);
    const t = await until(id, (x) => x.state === "failed");
    expect(JSON.stringify(t.cascade.attempts)).toContain("DISCOVERY_AMBIGUOUS");
  });

  test("no confirming VASP → no VASP found: failed with vasp_not_found", async () => {
    const id = await create(NOBODY_ADDR);
    const t = await until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.some((a: any) => a.status === "vasp_not_found")).toBe(true);
  });

  test("REJECTED in the provider's status → rejected, status.theirs rejected", async () => {
    const id = await create(REJECT_ADDR);
    const t = await until(id, (x) => x.state === "rejected" || x.state === "failed");
    expect(t.state, JSON.stringify(t.cascade)).toBe("rejected");
    expect(t.status.theirs).toBe("rejected");
  });

  test("a failed answer after reservation → failed, attempt submission_unknown; retry never sends it again", async () => {
    bridge.setRouteFault("/bridge/transaction/permission-request", { status: 500 });
    const before = bridge.requests.filter((q) => q.path === "/bridge/transaction/permission-request").length;
    const id = await create(BENE_ADDR);
    const t = await until(id, (x) => x.state === "failed");
    bridge.setRouteFault("/bridge/transaction/permission-request", null);
    expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_e", status: "submission_unknown" });
    const r = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "try again" } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_REQUEST");
    await Bun.sleep(300);
    expect(bridge.requests.filter((q) => q.path === "/bridge/transaction/permission-request").length).toBe(before + 1);
  });

  test("an originator without a verified identity → not taken (VERIFIED_ORIGINATOR_REQUIRED), no permission request sent", async () => {
    const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Unverified Person" } });
    const addr = "0x" + "9c".repeat(20);
    const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId: c.body.data.id, network: "ethereum", address: addr } });
    expect(w.status).toBe(201);
    const before = bridge.requests.filter((q) => q.path === "/bridge/transaction/permission-request").length;
    const id = await create(BENE_ADDR, { originatorCustomerId: c.body.data.id, originatorAddress: w.body.data.address });
    const t = await until(id, (x) => x.state === "failed");
    expect(t.cascade.attempts.some((a: any) => a.error === "VERIFIED_ORIGINATOR_REQUIRED")).toBe(true);
    expect(bridge.requests.filter((q) => q.path === "/bridge/transaction/permission-request").length).toBe(before);
  });
});

describe("discovery bounds", () => {
  test("an unanswered candidate makes the search ask again later (retry), never a guess", async () => {
    await saveSettings({ discoveryVaspCodes: "BENEFVASP SILENTVASP" });
    const id = await create(BENE_ADDR);
    // The silent VASP never answers: the round ends at its 20 s budget without a decision and the transfer stays
    // processing (asked again at least 11 s later), nothing sent.
    const asked = bridge.stats.asked;
    const t = await until(id, (x) => x.state !== "queued" && bridge.stats.asked >= asked + 2);
    expect(t.state).toBe("processing");
    expect(t.cascade.externalId).toBeNull();
    expect(bridge.stats.maxInFlight).toBeLessThanOrEqual(8);
    await saveSettings({ discoveryVaspCodes: ALLOW });
  });

  test("a forged candidate answer does not count", async () => {
    await saveSettings({ discoveryVaspCodes: "FORGEVASP BENEFVASP" });
    const id = await create(NOBODY_ADDR);
    const t = await until(id, (x) => x.state === "failed" || x.state === "processing");
    // FORGEVASP signs with a key that is not its directory key: its "yes" is unanswered, so the search retries.
    expect(t.state).toBe("processing");
    await saveSettings({ discoveryVaspCodes: ALLOW });
  });
});

describe("callbacks", () => {
  test("address-validation: signed with bridgePublicKey, answered signed with our key; is_valid only for verified wallets", async () => {
    const q = signObject({ originator_vasp_code: "BENEFVASP", vasp_code: OUR_CODE, currency_id: "sygna:0x8000003c", addrs: [{ address: ORIGIN_ADDR, addr_extra_info: [] }], data_dt: new Date().toISOString() }, bridge.bridgePrivateKey);
    const r = await bridge.deliver("address-validation", q);
    expect(r.status).toBe(200);
    expect((r.body as any).is_valid).toBe(true);
    const { verifyObject } = await import("../../src/adapters/providers/provider_e/crypto.ts");
    expect(verifyObject(r.body, publicKeyOf(P.ourKey))).toBe(true);
    const unknown = signObject({ ...q, addrs: [{ address: NOBODY_ADDR, addr_extra_info: [] }], signature: "" }, bridge.bridgePrivateKey);
    expect(((await bridge.deliver("address-validation", unknown)).body as any).is_valid).toBe(false);
    const forged = signObject({ ...q, signature: "" }, randomPrivateKey());
    const f = await bridge.deliver("address-validation", forged);
    expect(f.status).toBe(401);
    expect(f.body).toEqual({ error: "INVALID_SIGNATURE" });
  });

  test("not JSON → 400 Invalid callback; unknown event path → 404 NOT_FOUND; unknown transfer → 404 UNKNOWN_TRANSFER", async () => {
    const bad = await bridge.deliver("txid", null, "{nope");
    expect(bad).toEqual({ status: 400, body: { error: "Invalid callback" } });
    const r = await fetch(`${P.S.url}/api/system/trp/provider_e/test/${providerId}/other`, { method: "POST", body: "{}" });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: "Not found", code: "NOT_FOUND" });
    const u = await bridge.deliver("txid", { transfer_id: "0".repeat(64), txid: "x", signature: "00" });
    expect(u).toEqual({ status: 404, body: { error: "UNKNOWN_TRANSFER" } });
  });

  test("a permission with a wrong token → 404 UNKNOWN_TRANSFER; unknown provider ID → 503 Provider unavailable", async () => {
    const r = await fetch(`${P.S.url}/api/system/trp/provider_e/test/${providerId}/permission?transfer=${"trf_x"}&token=bad`, { method: "POST", body: JSON.stringify({ transfer_id: "0".repeat(64), permission_status: "ACCEPTED", signature: "00" }) });
    expect(r.status).toBe(404);
    const p = await fetch(`${P.S.url}/api/system/trp/provider_e/test/nope/txid`, { method: "POST", body: "{}" });
    expect(p.status).toBe(503);
    expect(await p.json()).toEqual({ error: "Provider unavailable" });
  });
});

describe("incoming", () => {
  const input = (extra: Record<string, unknown> = {}) => ({
    from: "BENEFVASP",
    originatorPersons: [RICHARD],
    beneficiaryPersons: [JANE],
    originatorAddress: "0x" + "11".repeat(20),
    beneficiaryAddress: ORIGIN_ADDR,
    ...extra,
  });
  const byExternal = async (externalId: string) => {
    const r = await call(`/api/v2/transfers?direction=incoming&search=${externalId}`, { key: owner });
    return r.body.data[0];
  };

  test("permission-request: decrypted, created exchanging (transfer.created), screened, accepted at the provider → awaiting_counterparty; txid completes", async () => {
    const r = await bridge.sendPermissionRequest(input());
    expect(r).toMatchObject({ status: 200, body: { status: "OK" } });
    const t = await byExternal(r.transferId);
    expect(t).toBeDefined();
    const d = await until(t.id, (x) => x.state === "awaiting_counterparty");
    expect(d.direction).toBe("incoming");
    expect(d.status.ours).toBe("accepted");
    expect(bridge.transfers.get(r.transferId)!.data.permission_status).toBe("ACCEPTED");
    // A repeated event gets the same answer and changes nothing.
    const again = await bridge.deliver("permission-request", { transfer_id: r.transferId, data: { ...bridge.transfers.get(r.transferId)!.data, signature: bridge.transfers.get(r.transferId)!.data.permission_request_data_signature } });
    expect(again.status).toBeLessThan(500);
    const tx = await bridge.sendTxid(r.transferId, "0x" + "ef".repeat(32));
    expect(tx).toEqual({ status: 200, body: { status: "OK" } });
    const done = await until(t.id, (x) => x.state === "completed");
    expect(done.txHash).toBe("0x" + "ef".repeat(32));
    // Repeated: same answer, nothing changes.
    expect(await bridge.sendTxid(r.transferId, "0x" + "ef".repeat(32))).toEqual({ status: 200, body: { status: "OK" } });
  });

  test("a name mismatch → rejected at the provider with BVRC002, transfer rejected", async () => {
    const r = await bridge.sendPermissionRequest(input({ beneficiaryPersons: [person("Smith", "John")] }));
    expect(r.status).toBe(200);
    const t = await byExternal(r.transferId);
    const d = await until(t.id, (x) => x.state === "rejected");
    expect(d.state).toBe("rejected");
    const sent = bridge.transfers.get(r.transferId)!;
    expect(sent.data.permission_status).toBe("REJECTED");
    expect(sent.data.reject_code).toBe("BVRC002");
  });

  test("an address with no wallet on the network → the transfer is created rejected (audited), rejected at the provider with BVRC001", async () => {
    const r = await bridge.sendPermissionRequest(input({ beneficiaryAddress: NOBODY_ADDR }));
    expect(r).toMatchObject({ status: 200, body: { status: "OK" } });
    expect(bridge.transfers.get(r.transferId)!.data.permission_status).toBe("REJECTED");
    expect(bridge.transfers.get(r.transferId)!.data.reject_code).toBe("BVRC001");
    const t = await byExternal(r.transferId);
    expect(t).toBeDefined();
    const d = await until(t.id, (x) => x.state === "rejected");
    expect(d.direction).toBe("incoming");
    expect(d.beneficiary.address).toBe(NOBODY_ADDR);
    expect(P.events(t.id).map((e) => e.type)).toEqual(expect.arrayContaining(["transfer.created", "transfer.rejected"]));
    const audit = await call(`/api/v2/audit-log?entityType=Transfer&entityId=${t.id}`, { key: owner });
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(["transfer.created", "transfer.rejected"]));
  });

  test("two originator addresses → 400 UNSUPPORTED_TRANSFER; already expired → 400 TRANSFER_EXPIRED; dated ahead → TRANSFER_EXPIRED", async () => {
    expect(await bridge.sendPermissionRequest(input({ extraOriginatorAddress: true }))).toMatchObject({ status: 400, body: { error: "UNSUPPORTED_TRANSFER" } });
    expect(await bridge.sendPermissionRequest(input({ originatorExtra: true }))).toMatchObject({ status: 400, body: { error: "UNSUPPORTED_TRANSFER" } });
    expect(await bridge.sendPermissionRequest(input({ expireDate: Date.now() - 1000 }))).toMatchObject({ status: 400, body: { error: "TRANSFER_EXPIRED" } });
    expect(await bridge.sendPermissionRequest(input({ dataDt: new Date(Date.now() + 10 * 60_000).toISOString() }))).toMatchObject({ status: 400, body: { error: "TRANSFER_EXPIRED" } });
  });

  test("a different permission-request for a received transfer ID → 400 INCOMING_REPLAY_MISMATCH; a forged one → 401", async () => {
    const r = await bridge.sendPermissionRequest(input());
    const t = bridge.transfers.get(r.transferId)!;
    const v = bridge.vasps.get("BENEFVASP")!;
    const { signature: _s, ...data } = { ...t.data, private_info: t.data.private_info, transaction: t.data.transaction, data_dt: new Date().toISOString(), signature: "" } as Record<string, unknown>;
    const other = signObject({ private_info: t.data.private_info, transaction: t.data.transaction, data_dt: new Date().toISOString(), need_validate_addr: true }, v.privateKey);
    void data;
    expect(await bridge.deliver("permission-request", { transfer_id: r.transferId, data: other })).toEqual({ status: 400, body: { error: "INCOMING_REPLAY_MISMATCH" } });
    const forged = signObject({ private_info: t.data.private_info, transaction: t.data.transaction, data_dt: new Date().toISOString() }, randomPrivateKey());
    expect(await bridge.deliver("permission-request", { transfer_id: "f".repeat(64), data: forged })).toEqual({ status: 401, body: { error: "INVALID_SIGNATURE" } });
  });

  test("cancel from the originator → rejected; a forged txid → 401 INVALID_SIGNATURE changes nothing", async () => {
    const r = await bridge.sendPermissionRequest(input());
    const t = await byExternal(r.transferId);
    await until(t.id, (x) => x.state === "awaiting_counterparty");
    expect(await bridge.sendTxid(r.transferId, "0x" + "12".repeat(32), { forge: true })).toEqual({ status: 401, body: { error: "INVALID_SIGNATURE" } });
    expect(await bridge.sendCancel(r.transferId)).toEqual({ status: 200, body: { status: "OK" } });
    const d = await until(t.id, (x) => x.state === "rejected");
    expect(d.status.theirs).toBe("rejected");
  });
});
