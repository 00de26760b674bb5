// provider_a's pure rules: Standard Webhooks signatures byte-exact with the `standardwebhooks` package, settings
// formats (INVALID_CONFIGURATION), events, the status helpers, binding, counterparty IVMS101 and the agent chain.
import { test, expect, describe } from "bun:test";
import { Webhook } from "standardwebhooks";
import { sign, verify, TOLERANCE_MS } from "../../src/domain/provider_a/signature.ts";
import { checkSettings, parseOrigins, webhookKey, DEFAULT_API_ORIGINS } from "../../src/domain/provider_a/settings.ts";
import { readEvent } from "../../src/domain/provider_a/events.ts";
import { agentChainOk, assetNetwork, beneficiaryInformationPresent, bindingMismatch, carries, counterpartyAccepted, isFlagged, isRejected, isSettled, peerIdentityProblem, readTx, roleOf, type ProviderTx } from "../../src/domain/provider_a/transfer.ts";
import type { Person } from "../../src/domain/ivms101/index.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const enc = (s: string) => new TextEncoder().encode(s);

describe("Standard Webhooks signature", () => {
  test("byte-exact with the standardwebhooks package for the same message, timestamp and body", () => {
    const lib = new Webhook(SECRET);
    for (const body of ['{"a":1}', "", "héllo ✓ 🚀", JSON.stringify({ message: "notification.transfer.updated", payload: { id: "tx_1", for: "did:web:x" }, version: "1.0.0" })]) {
      const ts = 1_700_000_000;
      expect(sign(webhookKey(SECRET)!, "msg_1", ts, enc(body))).toBe(lib.sign("msg_1", new Date(ts * 1000), body));
    }
  });

  test("a signature made by the package verifies; wrong, missing or other-secret ones do not", () => {
    const now = Date.now();
    const body = '{"x":"y"}';
    const sig = new Webhook(SECRET).sign("msg_2", new Date(now), body);
    const h = { id: "msg_2", timestamp: String(Math.floor(now / 1000)), signature: sig };
    expect(verify(SECRET, h, enc(body), now)).toEqual({ ok: true });
    expect(verify(SECRET, { ...h, signature: null }, enc(body), now)).toEqual({ ok: false, reason: "missing" });
    expect(verify(SECRET, h, enc('{"x":"z"}'), now)).toEqual({ ok: false, reason: "signature" });
    expect(verify(SECRET, { ...h, id: "msg_3" }, enc(body), now)).toEqual({ ok: false, reason: "signature" });
    expect(verify("whsec_" + btoa("another key"), h, enc(body), now)).toEqual({ ok: false, reason: "signature" });
  });

  test("several signatures (rotation): any v1 match passes; other versions are ignored", () => {
    const now = Date.now();
    const sig = new Webhook(SECRET).sign("m", new Date(now), "{}");
    const h = { id: "m", timestamp: String(Math.floor(now / 1000)), signature: `v2,${sig.slice(3)} v1,AAAA ${sig}` };
    expect(verify(SECRET, h, enc("{}"), now).ok).toBe(true);
    expect(verify(SECRET, { ...h, signature: `v2,${sig.slice(3)}` }, enc("{}"), now).ok).toBe(false);
  });

  test("timestamp within five minutes either way", () => {
    const now = 1_800_000_000_000;
    const at = (ms: number) => ({ id: "m", timestamp: String(Math.floor(ms / 1000)), signature: new Webhook(SECRET).sign("m", new Date(ms), "{}") });
    expect(verify(SECRET, at(now - TOLERANCE_MS), enc("{}"), now).ok).toBe(true);
    expect(verify(SECRET, at(now - TOLERANCE_MS - 1000), enc("{}"), now)).toEqual({ ok: false, reason: "timestamp" });
    expect(verify(SECRET, at(now + TOLERANCE_MS + 1000), enc("{}"), now)).toEqual({ ok: false, reason: "timestamp" });
  });
});

describe("settings checked on use", () => {
  const good = { apiUrl: "https://api.notabene.id", clientId: "c", clientSecret: "s", vaspDid: "did:web:caravan.example", webhookSecret: SECRET };
  test("the five settings in their formats pass", () => {
    expect(checkSettings(good, DEFAULT_API_ORIGINS).ok).toBe(true);
  });
  for (const [field, value] of [
    ["apiUrl", "https://evil.example"],
    ["apiUrl", "https://api.notabene.id/v1"],
    ["clientId", ""],
    ["clientSecret", ""],
    ["vaspDid", "not-a-did"],
    ["vaspDid", "did:web:" + "x".repeat(250)],
    ["webhookSecret", "secret"],
    ["webhookSecret", "whsec_!!!"],
  ] as const)
    test(`${field} = ${JSON.stringify(value.slice(0, 30))} does not fit`, () => {
      const r = checkSettings({ ...good, [field]: value }, DEFAULT_API_ORIGINS);
      expect(r).toMatchObject({ ok: false, field });
    });
  test("CARAVAN_PROVIDER_A_API_ORIGINS: a comma-separated list; default the two regional origins", () => {
    expect(parseOrigins(undefined)).toEqual([...DEFAULT_API_ORIGINS]);
    expect(parseOrigins("http://127.0.0.1:9, https://x.example/")).toEqual(["http://127.0.0.1:9", "https://x.example"]);
  });
});

describe("events", () => {
  const did = "did:web:caravan.example";
  const e = (o: Record<string, unknown>) => ({ message: "notification.transfer.updated", payload: { id: "tx_1", for: did }, version: "1.0.0", ...o });
  test.each([
    [e({}), { kind: "transfer", message: "notification.transfer.updated", providerTransferId: "tx_1" }],
    [e({ message: "tap.required" }), { kind: "transfer", message: "tap.required", providerTransferId: "tx_1" }],
    [e({ message: "notification.entity.updated" }), { kind: "ignored", message: "notification.entity.updated" }],
    [e({ version: "1.0.1" }), { kind: "invalid", path: "version" }],
    [e({ message: 7 }), { kind: "invalid", path: "message" }],
    [e({ payload: "tx_1" }), { kind: "invalid", path: "payload" }],
    [e({ payload: { id: "tx_1", for: "did:web:other" } }), { kind: "invalid", path: "payload.for" }],
    [e({ payload: { for: did } }), { kind: "invalid", path: "payload.id" }],
    [[], { kind: "invalid", path: "(body)" }],
  ])("%j → %j", (v, want) => {
    expect(readEvent(v, did)).toEqual(want as never);
  });
});

const P = (family: string, given: string): Person => ({ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] } } });
const ORIG = "did:pkh:eip155:1:0xabc";
const BENE = "did:pkh:eip155:1:0xDEF";
/** TAIP-5 agents in Notabene's roles: the two VASPs (with their statuses) and the two addresses. */
const agents = (us = "AUTHORIZED", them = "PROCESSING", extra: Record<string, unknown>[] = []) => [
  { "@id": ORIG, for: "did:web:us", role: "SourceAddress" },
  { "@id": "did:web:us", for: ORIG, role: "VASP", status: us },
  { "@id": "did:web:them", for: BENE, role: "VASP", status: them },
  { "@id": BENE, for: "did:web:them", role: "SettlementAddress" },
  ...extra,
];
/** A transfer read as Notabene answers it (`{ transfer }`), fields overridden on the wire. */
function tx(o: Record<string, unknown> = {}): ProviderTx {
  const r = readTx({
    transfer: {
      "@id": "tx_1",
      status: "PENDING",
      ref: "trf_1",
      direction: "OUTGOING",
      asset: "eip155:1/slip44:60",
      amount: "1.50",
      originator: { "@id": ORIG },
      beneficiary: { "@id": BENE },
      agents: agents(),
      ...o,
    },
  });
  if (!r) throw new Error("not read");
  return r;
}

describe("status table helpers", () => {
  test("REJECTED on the transfer or the counterparty's VASP agent", () => {
    expect(isRejected(tx({ status: "REJECTED" }), "BENEFICIARY")).toBe(true);
    expect(isRejected(tx({ agents: agents("AUTHORIZED", "REJECTED") }), "BENEFICIARY")).toBe(true);
    expect(isRejected(tx(), "BENEFICIARY")).toBe(false);
  });
  test.each(["FLAGGED", "FLAGGED-SETTLEMENT", "FROZEN", "REVERTED", "REVERT-REQUESTED", "REVERT-AUTHORIZED", "REVERT-REJECTED", "REVERT-FLAGGED"])("%s holds", (status) => {
    expect(isFlagged(tx({ status }))).toBe(true);
  });
  test("any flag holds (a code or an object naming one)", () => {
    expect(isFlagged(tx({ flags: ["X"] }))).toBe(true);
    expect(isFlagged(tx({ flags: [{ type: "MANUAL_REVIEW" }] }))).toBe(true);
    expect(isFlagged(tx())).toBe(false);
  });
  test("counterparty AUTHORIZED, SETTLED or CLEARED accepts", () => {
    expect(counterpartyAccepted(tx(), "BENEFICIARY")).toBe(false);
    expect(counterpartyAccepted(tx({ status: "SETTLED" }), "BENEFICIARY")).toBe(true);
    expect(counterpartyAccepted(tx({ status: "CLEARED" }), "BENEFICIARY")).toBe(true);
    expect(counterpartyAccepted(tx(), "ORIGINATOR")).toBe(true);
  });
  test("completed needs SETTLED or CLEARED with a settlement", () => {
    expect(isSettled(tx({ status: "SETTLED" }))).toBe(false);
    expect(isSettled(tx({ status: "CLEARED", settlementId: "0x1" }))).toBe(true);
  });
  test("our side by our DID among the VASP agents, the counterparty's likewise", () => {
    expect(roleOf(tx(), "did:web:us")).toBe("ORIGINATOR");
    expect(roleOf(tx(), "did:web:them")).toBe("BENEFICIARY");
    expect(roleOf(tx(), "did:web:else")).toBeNull();
    // An address agent is not a VASP, whatever its @id.
    expect(roleOf(tx(), ORIG)).toBeNull();
  });
  test("direct transfers only: one VASP per party, its addresses; no custodian, gateway or other agent", () => {
    expect(agentChainOk(tx())).toBe(true);
    expect(agentChainOk(tx({ agents: agents().filter((a) => a.role === "VASP") }))).toBe(true);
    const extra = (a: Record<string, unknown>) => tx({ agents: agents("AUTHORIZED", "PROCESSING", [a]) });
    expect(agentChainOk(extra({ "@id": "did:web:c", for: "did:web:them", role: "Custodian" }))).toBe(false);
    expect(agentChainOk(extra({ "@id": "did:web:g", for: "did:web:us", role: "Gateway" }))).toBe(false);
    expect(agentChainOk(extra({ "@id": "did:web:x", role: "Unknown" }))).toBe(false);
    expect(agentChainOk(extra({ "@id": "did:web:other", for: BENE, role: "VASP" }))).toBe(false);
    expect(agentChainOk(extra({ "@id": "did:pkh:eip155:1:0x2", for: "did:web:them", role: "SettlementAddress" }))).toBe(false);
    // A settlement address acting for someone outside the transfer is another agent chain.
    expect(agentChainOk(tx({ agents: agents().map((a) => (a.role === "SettlementAddress" ? { ...a, for: "did:web:custodian" } : a)) }))).toBe(false);
    // One VASP for both parties is not a transfer between two VASPs.
    expect(agentChainOk(tx({ agents: agents().map((a) => (a["@id"] === "did:web:them" ? { ...a, "@id": "did:web:us" } : a)) }))).toBe(false);
  });
  test("networks sent through provider_a; discovery code", () => {
    expect(carries("polygon")).toBe(true);
    expect(carries("fantom")).toBe(false);
    expect(carries("bitcoin-cash")).toBe(false);
    expect(assetNetwork("usdc", "polygon")).toBe("USDC-POLYGON");
  });
});

describe("binding and counterparty IVMS101", () => {
  const b = { assetId: "eip155:1/slip44:60", amount: "1.5", originatorAddress: "0xABC", beneficiaryAddress: "0xdef", originatorDid: "did:web:us", beneficiaryDid: "did:web:them" };
  test("the same transfer binds (EVM addresses in any case, trailing zeros)", () => expect(bindingMismatch(tx(), b)).toBeNull());
  test.each([
    ["amount", { amount: "2" }],
    ["asset", { assetId: "eip155:137/slip44:966" }],
    ["beneficiary address", { beneficiaryAddress: "0x123" }],
    ["beneficiary address", { beneficiaryAddress: "0xdef?memo=5" }],
    ["originator address", { originatorAddress: "0x999" }],
    ["beneficiary VASP", { beneficiaryDid: "did:web:else" }],
    ["originating VASP", { originatorDid: "did:web:else" }],
  ])("%s differs → TRANSFER_BINDING_MISMATCH", (field, change) => {
    expect(bindingMismatch(tx(), { ...b, ...change })).toBe(field);
  });
  test("a settlement address on another chain than the asset's is another network", () => {
    const other = agents().map((a) => (a.role === "SettlementAddress" ? { ...a, "@id": "did:pkh:eip155:137:0xDEF" } : a));
    expect(bindingMismatch(tx({ agents: other }), b)).toBe("network");
  });
  test("no settlement address at all binds nothing", () => {
    expect(bindingMismatch(tx({ agents: agents().filter((a) => a.role !== "SettlementAddress") }), b)).toBe("beneficiary address");
    // Notabene's `settlementAddress` field (CAIP-10) stands in for the agent.
    expect(bindingMismatch(tx({ agents: agents().filter((a) => a.role !== "SettlementAddress"), settlementAddress: "eip155:1:0xdef" }), b)).toBeNull();
  });
  test("persons form a valid group and list the transfer's address", () => {
    expect(peerIdentityProblem({ persons: [P("Roe", "Richard")], accountNumber: ["0xDEF"] }, "0xdef")).toBeNull();
    expect(peerIdentityProblem({ persons: [], accountNumber: ["0xdef"] }, "0xdef")).toBe("INVALID_PEER_IDENTITY");
    expect(peerIdentityProblem({ persons: [{} as Person], accountNumber: ["0xdef"] }, "0xdef")).toBe("INVALID_PEER_IDENTITY");
    expect(peerIdentityProblem({ persons: [P("Roe", "Richard")], accountNumber: ["0x111"] }, "0xdef")).toBe("PII_ACCOUNT_MISMATCH");
    expect(peerIdentityProblem({ persons: [P("Roe", "Richard")], accountNumber: ["rAddr:42"] }, "rAddr?dt=42")).toBeNull();
    expect(peerIdentityProblem({ persons: [P("Roe", "Richard")], accountNumber: ["rAddr"] }, "rAddr?dt=42")).toBe("PII_ACCOUNT_MISMATCH");
  });
  test("outgoing: the beneficiary VASP's information is present once it acted or replaced what we appended", () => {
    const sent = [P("Roe", "Richard")];
    const processing = tx({ agents: agents("PROCESSING", "PROCESSING") });
    // Only our own appended data: not the counterparty's yet.
    expect(beneficiaryInformationPresent(processing, [P("Roe", "Richard")], sent)).toBe(false);
    expect(beneficiaryInformationPresent(processing, [P("Roe", "Rick")], sent)).toBe(true);
    expect(beneficiaryInformationPresent(tx({ agents: agents("PROCESSING", "AUTHORIZED") }), sent, sent)).toBe(true);
  });
  test("a malformed provider answer is refused", () => {
    expect(readTx({ id: "x" })).toBeNull();
    expect(readTx({ transfer: { "@id": "x" } })).toBeNull();
    expect(() => tx({ amount: 1 })).toThrow();
    // The flat shape of an older misreading is not a transfer answer.
    expect(readTx({ id: "tx_1", status: "PENDING", asset: "eip155:1/slip44:60", amount: "1", beneficiaryAddress: "0x1", agents: [] })).toBeNull();
  });
});
