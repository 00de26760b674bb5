// provider_e information requests (CDD) end to end: Part 1 "Information requests (transfers carried by provider_e)"
// and Part 3 "provider_e transfers → Information requests", against the sandbox bridge over real HTTP with real
// secp256k1 signatures and ECIES (the `cdd` callback, the background send, holds, reviews, drafts, masking).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";
import { randomPrivateKey, signObject } from "../../src/adapters/providers/provider_e/crypto.ts";
import { actorState, actorStates } from "../support/actor-state.ts";

setDefaultTimeout(60_000);

const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const identity = [
  person("Doe", "Jane", "NL", {
    geographicAddress: [{ addressType: "HOME", streetName: "Keizersgracht", buildingNumber: "12", postCode: "1015CX", townName: "Amsterdam", country: "NL" }],
    dateAndPlaceOfBirth: { dateOfBirth: "1980-02-03", placeOfBirth: "Utrecht" },
  }),
];
const dir = tempDir();
let s: Suite;
let analyst: string;

const uuid = () => crypto.randomUUID();
const ir = (id: string, key = s.owner) => s.call(`/api/v2/transfers/${id}/information-requests`, { key });
const act = (id: string, json: unknown, key = s.owner) => s.call(`/api/v2/transfers/${id}/information-requests`, { method: "POST", key, json });

/** The verdict (`status` of the list item). */
const verdict = async (id: string) => (await s.call(`/api/v2/transfers?search=${id}`, { key: s.owner })).body.data[0].status;

async function messagesUntil(id: string, done: (d: any) => boolean) {
  for (let i = 0; i < 300; i++) {
    const r = await ir(id);
    if (r.status === 200 && done(r.body.data)) return r.body.data;
    await Bun.sleep(50);
  }
  throw new Error(`information requests of ${id}: ${JSON.stringify((await ir(id)).body)}`);
}

beforeAll(async () => {
  s = await startProviderESuite(dir, {
    identity,
    allow: "BENEFVASP TEXTVASP",
    bridge: { vasps: [{ code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE_ADDR] }, { code: "TEXTVASP", name: "Text Exchange", cddAnswer: "text" }] },
  });
  analyst = (await s.newKey("--env", "test", "--role", "analyst")).key;
});

afterAll(async () => {
  await s?.stop();
});

describe("outgoing transfer: the beneficiary VASP asks, we reply", () => {
  let id: string;
  let pid: string;
  let requestId: string;

  test("a received REQUEST_CDD holds the transfer (held, pending verdict, transfer.held), pending: true, with a draft from the verified identity", async () => {
    id = await s.create(BENE_ADDR);
    const t = await s.until(id, (x) => x.state === "awaiting_counterparty");
    pid = t.cascade.externalId;
    const fields = { geographic_address: ["street_name", "town_name", "country"], date_and_place_of_birth: ["date_of_birth"], other_cdd_info: "What is the purpose of the payment?" };
    const r = await s.bridge.sendCdd(pid, "BENEFVASP", "REQUEST_CDD", fields);
    expect(r).toMatchObject({ status: 200, body: { status: "OK" } });
    await s.until(id, (x) => x.state === "held");
    expect(await verdict(id)).toBe("pending");
    expect(s.events(id).map((e) => e.type)).toContain("transfer.held");
    const d = (await ir(id)).body.data;
    expect(d.pending).toBe(true);
    expect(d.messages).toHaveLength(1);
    const m = d.messages[0];
    expect(m).toMatchObject({ direction: "inbound", type: "REQUEST_CDD", status: "received", inReplyToId: null, reviewedAt: null, content: fields });
    expect(m.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(m.draft.information).toEqual({ geographic_address: { street_name: "Keizersgracht", town_name: "Amsterdam", country: "NL" }, date_and_place_of_birth: { date_of_birth: "1980-02-03" } });
    expect(m.draft.missing).toEqual(["other_cdd_info"]);
    requestId = m.id;
    // The same callback again: the same answer, nothing new.
    expect(await s.bridge.deliver("cdd", r.wire)).toEqual({ status: 200, body: { status: "OK" } });
    expect((await ir(id)).body.data.messages).toHaveLength(1);
  });

  test("without pii:view the draft and free text are masked (meta.piiMasked)", async () => {
    const r = await ir(id, analyst);
    expect(r.status).toBe(200);
    expect(r.body.meta.piiMasked).toBe(true);
    const m = r.body.data.messages[0];
    expect(m.content.other_cdd_info).toBe("***");
    expect(m.content.geographic_address).toEqual(["street_name", "town_name", "country"]);
    expect(JSON.stringify(m.draft)).not.toContain("Keizersgracht");
  });

  test("messages are sealed at rest: the database holds no plaintext of them", async () => {
    const d = new Database(s.db, { readonly: true });
    try {
      // Actor states are sealed as a whole; opened, they show the message's kind but never its content.
      const all = [...actorStates(s.db).values()].map((x) => JSON.stringify(x)).join("\n");
      expect(all).toContain("REQUEST_CDD");
      expect(all).not.toContain("purpose of the payment");
      const raw = (d.query("SELECT state FROM actor_state").all() as { state: string }[]).map((x) => x.state).join("\n");
      expect(raw).not.toContain("REQUEST_CDD");
    } finally {
      d.close();
    }
  });

  test("on a held transfer accept with txHash is refused (400 INVALID_REQUEST)", async () => {
    const r = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept", txHash: "0x" + "ab".repeat(32) } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_REQUEST");
  });

  test("request on an outgoing transfer → 400 CDD_DIRECTION_MISMATCH; RESPOND_CDD or POST_CDD received for it → 400 CDD_DIRECTION_MISMATCH", async () => {
    const r = await act(id, { action: "request", idempotencyKey: uuid(), fields: { country_of_residence: true } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("CDD_DIRECTION_MISMATCH");
    for (const type of ["RESPOND_CDD", "POST_CDD"] as const) {
      const c = await s.bridge.sendCdd(pid, "BENEFVASP", type, { x: "y" });
      expect(c).toMatchObject({ status: 400, body: { error: "CDD_DIRECTION_MISMATCH" } });
    }
  });

  test("invalid actions → 400 INVALID_INFORMATION_REQUEST with details.issues; information over 50 KB refused, 50 KB taken", async () => {
    const cases: unknown[] = [
      {},
      { action: "cancel" },
      { action: "reply", idempotencyKey: "not-a-uuid", requestId, information: { a: 1 } },
      { action: "reply", idempotencyKey: uuid(), requestId, information: "text" },
      { action: "post", idempotencyKey: uuid(), information: { a: 1 }, extra: true },
      { action: "review", reviewedMessageIds: [], note: "x" },
      { action: "review", reviewedMessageIds: [requestId] },
      { action: "retry" },
    ];
    for (const body of cases) {
      const r = await act(id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("INVALID_INFORMATION_REQUEST");
      expect(r.body.details.issues.length).toBeGreaterThan(0);
    }
    // {"t":"…"} is 8 bytes of JSON around the text.
    const over = await act(id, { action: "post", idempotencyKey: uuid(), information: { t: "x".repeat(50 * 1024 - 7) } });
    expect(over.status).toBe(400);
    expect(over.body.details.issues[0].path).toBe("information");
    const exact = await act(id, { action: "post", idempotencyKey: uuid(), information: { t: "x".repeat(50 * 1024 - 8) } });
    expect(exact.status).toBe(202);
  });

  test("reply to an unknown request → 404 CDD_REQUEST_NOT_FOUND; review before the reply → 409 CDD_RESPONSE_REQUIRED; a stale list → 409 CDD_REVIEW_CHANGED", async () => {
    const r = await act(id, { action: "reply", idempotencyKey: uuid(), requestId: "cdd_unknown", information: { a: 1 } });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("CDD_REQUEST_NOT_FOUND");
    // The post above must be delivered first: wait for it.
    await messagesUntil(id, (d) => d.messages.filter((m: any) => m.type === "POST_CDD").every((m: any) => m.status === "sent"));
    const early = await act(id, { action: "review", reviewedMessageIds: [requestId], note: "Looked at it" });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("CDD_RESPONSE_REQUIRED");
    const stale = await act(id, { action: "review", reviewedMessageIds: ["cdd_other"], note: "Looked at it" });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("CDD_REVIEW_CHANGED");
  });

  test("reply → 202 queued, then sent (signed, encrypted for the beneficiary VASP); once (409 CDD_REPLY_ALREADY_QUEUED); the same idempotencyKey answers the same message", async () => {
    const key = uuid();
    const information = { geographic_address: { street_name: "Keizersgracht", town_name: "Amsterdam", country: "NL" }, other_cdd_info: "Family support" };
    const r = await act(id, { action: "reply", idempotencyKey: key, requestId, information });
    expect(r.status).toBe(202);
    expect(r.body.data).toEqual({ messageId: expect.stringMatching(/^cdd_/), status: "queued" });
    const again = await act(id, { action: "reply", idempotencyKey: key, requestId, information });
    expect(again.status).toBe(202);
    expect(again.body.data.messageId).toBe(r.body.data.messageId);
    const twice = await act(id, { action: "reply", idempotencyKey: uuid(), requestId, information });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("CDD_REPLY_ALREADY_QUEUED");
    const d = await messagesUntil(id, (x) => x.messages.find((m: any) => m.id === r.body.data.messageId)?.status === "sent");
    expect(d.messages.find((m: any) => m.id === r.body.data.messageId)).toMatchObject({ direction: "outbound", type: "RESPOND_CDD", inReplyToId: requestId });
    const inbox = s.bridge.transfers.get(pid)!.cddInbox;
    const got = inbox.find((x) => x.type === "RESPOND_CDD")!;
    expect(got.content).toEqual(information);
    expect(got.inReplyTo).toBeString();
  });

  test("review listing every unreviewed message → 202 status reviewed; approved when held: back to awaiting_counterparty; then the transaction completes", async () => {
    const r = await act(id, { action: "review", reviewedMessageIds: [requestId], note: "Answered with the verified identity" });
    expect(r.status).toBe(202);
    expect(r.body.data).toEqual({ status: "reviewed" });
    const d = (await ir(id)).body.data;
    expect(d.pending).toBe(false);
    expect(d.messages.find((m: any) => m.type === "REVIEW")).toMatchObject({ direction: "internal", status: "reviewed" });
    expect(d.messages.find((m: any) => m.id === requestId).reviewedAt).toMatch(/Z$/);
    const t = await s.until(id, (x) => x.state === "awaiting_counterparty");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    const done = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept", txHash: "0x" + "ab".repeat(32) } });
    expect(done.status).toBe(200);
    expect(done.body.data.state).toBe("completed");
  });

  test("a forged cdd callback → 401 INVALID_SIGNATURE; an unknown transfer → 404 UNKNOWN_TRANSFER", async () => {
    const forged = signObject({ transfer_id: pid, message_id: uuid(), type: "REQUEST_CDD", private_info: "00", data_dt: new Date().toISOString() }, randomPrivateKey());
    expect(await s.bridge.deliver("cdd", forged)).toEqual({ status: 401, body: { error: "INVALID_SIGNATURE" } });
    expect(await s.bridge.deliver("cdd", { ...forged, transfer_id: "0".repeat(64) })).toEqual({ status: 404, body: { error: "UNKNOWN_TRANSFER" } });
  });
});

/** The information messages as the transfer's actor stored them (its saved state). */
function storedCdd(id: string): { id: string; direction: string; status: string; wire?: Record<string, unknown> }[] {
  return actorState(s.db, `transfer:${id}`).flow.provider_e.cdd;
}

describe("delivery failures and provider refusals", () => {
  let id: string;
  let pid: string;

  test("a failed send → status failed with the code; review → 409 CDD_DELIVERY_PENDING; retry → queued, then sent", async () => {
    id = await s.create(BENE_ADDR);
    pid = (await s.until(id, (x) => x.state === "awaiting_counterparty")).cascade.externalId;
    s.bridge.setRouteFault("/bridge/transaction/cdd", { status: 500 });
    const p = await act(id, { action: "post", idempotencyKey: uuid(), information: { note: "unasked" } });
    expect(p.status).toBe(202);
    const failed = await messagesUntil(id, (d) => d.messages[0]?.status === "failed");
    expect(failed.messages[0].error).toBe("HTTP_500");
    // The signed body is kept while a retry may resend it unchanged.
    expect(storedCdd(id).find((m) => m.id === failed.messages[0].id)?.wire).toMatchObject({ transfer_id: pid, type: "POST_CDD" });
    expect(failed.pending).toBe(false);
    expect((await s.until(id, () => true)).state).toBe("awaiting_counterparty");
    // A received message needs a review now, and the failed post must be delivered first.
    const q = await s.bridge.sendCdd(pid, "BENEFVASP", "REQUEST_CDD", { country_of_residence: true });
    expect(q.status).toBe(200);
    const d = (await ir(id)).body.data;
    const req = d.messages.find((m: any) => m.type === "REQUEST_CDD");
    s.bridge.setRouteFault("/bridge/transaction/cdd", null);
    await act(id, { action: "reply", idempotencyKey: uuid(), requestId: req.id, information: { country_of_residence: "NL" } });
    await messagesUntil(id, (x) => x.messages.find((m: any) => m.type === "RESPOND_CDD")?.status === "sent");
    const blocked = await act(id, { action: "review", reviewedMessageIds: [req.id], note: "ok" });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe("CDD_DELIVERY_PENDING");
    const notFailed = await act(id, { action: "retry", messageId: req.id });
    expect(notFailed.status).toBe(400);
    expect(notFailed.body.code).toBe("INVALID_INFORMATION_REQUEST");
    const retry = await act(id, { action: "retry", messageId: d.messages[0].id });
    expect(retry.status).toBe(202);
    expect(retry.body.data).toEqual({ messageId: d.messages[0].id, status: "queued" });
    await messagesUntil(id, (x) => x.messages[0].status === "sent");
    expect(s.bridge.transfers.get(pid)!.cddInbox.filter((x) => x.type === "POST_CDD")).toHaveLength(1);
    // Once sent, the signed body is dropped from the flow state saved with every message of the transfer.
    const outbound = storedCdd(id).filter((m) => m.direction === "outbound");
    expect(outbound.map((m) => m.status)).toEqual(["sent", "sent"]);
    expect(outbound.every((m) => m.wire === undefined)).toBe(true);
    expect((await act(id, { action: "review", reviewedMessageIds: [req.id], note: "ok" })).status).toBe(202);
  });

  test("a refusal from the provider keeps 400/404/409 with its own code, and is 503 otherwise", async () => {
    s.bridge.setRouteFault("/bridge/transaction/status", { status: 409, code: "TRANSFER_LOCKED" });
    const a = await act(id, { action: "post", idempotencyKey: uuid(), information: { a: 1 } });
    expect(a.status).toBe(409);
    expect(a.body.code).toBe("TRANSFER_LOCKED");
    s.bridge.setRouteFault("/bridge/transaction/status", { status: 404 });
    const b = await act(id, { action: "post", idempotencyKey: uuid(), information: { a: 1 } });
    expect(b.status).toBe(404);
    expect(b.body.code).toBe("HTTP_404");
    s.bridge.setRouteFault("/bridge/transaction/status", { status: 502, code: "BRIDGE_DOWN" });
    const c = await act(id, { action: "post", idempotencyKey: uuid(), information: { a: 1 } });
    expect(c.status).toBe(503);
    expect(c.body.code).toBe("BRIDGE_DOWN");
    s.bridge.setRouteFault("/bridge/transaction/status", null);
  });
});

describe("incoming transfer: we ask, the originator VASP answers", () => {
  let id: string;
  let pid: string;
  let requestId: string;
  const input = (from = "BENEFVASP") => ({ from, originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });
  const byExternal = async (externalId: string) => (await s.call(`/api/v2/transfers?direction=incoming&search=${externalId}`, { key: s.owner })).body.data[0];

  test("request → 202 queued; the transfer is held (pending); the answer arrives on cdd (RESPOND_CDD, inReplyToId)", async () => {
    const r = await s.bridge.sendPermissionRequest(input());
    pid = r.transferId;
    id = (await byExternal(pid)).id;
    await s.until(id, (x) => x.state === "awaiting_counterparty");
    const fields = { national_identification: ["national_identifier", "country_of_issue"], customer_identification: true };
    const q = await act(id, { action: "request", idempotencyKey: uuid(), fields });
    expect(q.status).toBe(202);
    expect(q.body.data.status).toBe("queued");
    requestId = q.body.data.messageId;
    await s.until(id, (x) => x.state === "held");
    expect(await verdict(id)).toBe("pending");
    const d = await messagesUntil(id, (x) => x.messages.some((m: any) => m.type === "RESPOND_CDD"));
    expect(d.pending).toBe(true);
    expect(d.messages.find((m: any) => m.id === requestId)).toMatchObject({ direction: "outbound", type: "REQUEST_CDD", status: "sent", content: fields });
    const answer = d.messages.find((m: any) => m.type === "RESPOND_CDD");
    expect(answer).toMatchObject({ direction: "inbound", status: "received", inReplyToId: requestId });
    expect(answer.content.national_identification).toEqual({ national_identifier: "national_identifier of the originator", country_of_issue: "country_of_issue of the originator" });
    // Without pii:view the answer's person data is masked.
    const masked = (await ir(id, analyst)).body.data.messages.find((m: any) => m.type === "RESPOND_CDD");
    expect(JSON.stringify(masked.content)).not.toContain("originator");
  });

  test("while information waits for review: a new request → 409 CDD_REQUEST_ALREADY_OPEN; a held accept → 400 CDD_REVIEW_REQUIRED", async () => {
    const r = await act(id, { action: "request", idempotencyKey: uuid(), fields: { country_of_residence: true } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CDD_REQUEST_ALREADY_OPEN");
    const a = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "accept" } });
    expect(a.status).toBe(400);
    expect(a.body.code).toBe("INVALID_REQUEST");
    expect(a.body.error).toContain("CDD_REVIEW_REQUIRED");
  });

  test("reply or post on an incoming transfer, or a REQUEST_CDD received for it → CDD_DIRECTION_MISMATCH", async () => {
    for (const body of [{ action: "post", idempotencyKey: uuid(), information: { a: 1 } }, { action: "reply", idempotencyKey: uuid(), requestId, information: { a: 1 } }]) {
      const r = await act(id, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("CDD_DIRECTION_MISMATCH");
    }
    expect(await s.bridge.sendCdd(pid, "BENEFVASP", "REQUEST_CDD", { country_of_residence: true })).toMatchObject({ status: 400, body: { error: "CDD_DIRECTION_MISMATCH" } });
  });

  test("review → back to awaiting_counterparty (approved when held), screened again; the same fields again → 409 CDD_IDENTICAL_REQUEST_ALREADY_SENT", async () => {
    const d = (await ir(id)).body.data;
    const ids = d.messages.filter((m: any) => m.reviewedAt === null && (m.direction === "inbound" || m.type === "REQUEST_CDD")).map((m: any) => m.id);
    const r = await act(id, { action: "review", reviewedMessageIds: ids, note: "Identity document matches" });
    expect(r.status).toBe(202);
    const t = await s.until(id, (x) => x.state === "awaiting_counterparty");
    expect(t.status.ours).toBe("accepted");
    expect(await verdict(id)).toBe("approved");
    const same = await act(id, { action: "request", idempotencyKey: uuid(), fields: { customer_identification: true, national_identification: ["country_of_issue", "national_identifier"] } });
    expect(same.status).toBe(409);
    expect(same.body.code).toBe("CDD_IDENTICAL_REQUEST_ALREADY_SENT");
  });

  test("unasked information (POST_CDD) from the originator holds the transfer and emits transfer.held; a text answer reads as additional_information", async () => {
    const before = s.events(id).filter((e) => e.type === "transfer.held").length;
    const p = await s.bridge.sendCdd(pid, "BENEFVASP", "POST_CDD", "The funds come from a salary.");
    expect(p.status).toBe(200);
    await s.until(id, (x) => x.state === "held");
    expect(s.events(id).filter((e) => e.type === "transfer.held").length).toBe(before + 1);
    const d = (await ir(id)).body.data;
    expect(d.pending).toBe(true);
    expect(d.messages.at(-1)).toMatchObject({ direction: "inbound", type: "POST_CDD", content: { additional_information: "The funds come from a salary." } });
  });

  test("a RESPOND_CDD to a request we never sent → 400 CDD_REQUEST_NOT_FOUND", async () => {
    const r = await s.bridge.sendCdd(pid, "BENEFVASP", "RESPOND_CDD", { a: 1 }, uuid());
    expect(r).toMatchObject({ status: 400, body: { error: "CDD_REQUEST_NOT_FOUND" } });
  });
});

describe("which transfers take the endpoints", () => {
  test("an unknown ID → 404 TRANSFER_NOT_FOUND; a transfer not carried by provider_e → 404 PROVIDER_E_TRANSFER_NOT_FOUND", async () => {
    expect((await ir("trf_00000000000000000000000000")).body.code).toBe("TRANSFER_NOT_FOUND");
    // Below any provider: a transfer that never reached provider_e (the originator without a verified identity fails before reservation).
    const c = await s.call("/api/v2/customers", { method: "POST", key: s.owner, json: { name: "Nobody Verified" } });
    const addr = "0x" + "9c".repeat(20);
    const w = await s.call("/api/v2/wallets", { method: "POST", key: s.owner, json: { customerId: c.body.data.id, network: "ethereum", address: addr } });
    const id = await s.create(BENE_ADDR, { originatorCustomerId: c.body.data.id, originatorAddress: w.body.data.address });
    await s.until(id, (x) => x.state === "failed");
    const r = await ir(id);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("PROVIDER_E_TRANSFER_NOT_FOUND");
    expect((await act(id, { action: "post", idempotencyKey: uuid(), information: { a: 1 } })).body.code).toBe("PROVIDER_E_TRANSFER_NOT_FOUND");
  });

  test("provider_e disabled → 404 PROVIDER_E_TRANSFER_NOT_FOUND for its own transfers too", async () => {
    const id = await s.create(BENE_ADDR);
    await s.until(id, (x) => x.state === "awaiting_counterparty");
    expect((await ir(id)).status).toBe(200);
    expect((await s.call("/api/v2/providers/provider_e", { method: "PATCH", key: s.live, json: { enabled: false } })).status).toBe(200);
    try {
      const r = await ir(id);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("PROVIDER_E_TRANSFER_NOT_FOUND");
    } finally {
      expect((await s.call("/api/v2/providers/provider_e", { method: "PATCH", key: s.live, json: { enabled: true } })).status).toBe(200);
    }
  });
});
