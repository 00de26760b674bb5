// provider_a's wire against Notabene's published shapes. Recorded messages are written by hand from Notabene's own
// integration reference (Notabene-id/skills: notabene-api/references/api-reference.md, guide-travel-rule-api.md,
// webhooks.md) and TAP (TAIP-3 transfer, TAIP-5 agents), never produced by our encoder; they are fed through our
// decoders, and over real loopback HTTP through our client. Our encoders' output is checked with the providers'
// libraries: the TAP SDK's Zod schemas (@taprsvp/types), Notabene's `ivms101` package, and `standardwebhooks`.
import { test, expect, describe, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { AgentSchema, AmountSchema, CAIP10Schema, CAIP19Schema, DIDSchema } from "@taprsvp/types";
import { validate as validateIvms101 } from "ivms101";
import { Webhook } from "standardwebhooks";
import { readTransfer, readTx, roleOf, agentOf, agentChainOk, bindingMismatch } from "../../src/domain/provider_a/transfer.ts";
import { appendBody, createBody, rejectBody, relationshipBody, settleBody } from "../../src/domain/provider_a/wire.ts";
import { readEvent } from "../../src/domain/provider_a/events.ts";
import { sign, verify } from "../../src/domain/provider_a/signature.ts";
import { webhookKey, checkSettings } from "../../src/domain/provider_a/settings.ts";
import { ProviderAClient, clearTokenCache, type ProviderAFetch } from "../../src/adapters/providers/provider_a/client.ts";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import { person } from "../support/persons.ts";

setDefaultTimeout(30_000);

const US = "did:web:caravan.example";
const THEM = "did:web:harbour.example";
const ETH = "eip155:1/slip44:60";
const SOURCE = "0x9e3E5A1f5E2b4C1d0a8F7b6C5d4E3f2A1b0C9d8E";
const DEST = "0xa1e4380a3b1f749673e270229993ee55f35663b4";

/**
 * A decrypted read (`GET /entities/{did}/tx/{id}?decrypt=true`) of a transfer another VASP sent us, as the API
 * reference's Transfer schema lists it: `@id`, `status`, `initiator`, TAIP-5 `agents`, parties carrying their
 * IVMS101 2023 persons (`originatorPerson[]`; the beneficiary's as one object, as the guide reads
 * `beneficiary.beneficiaryPerson.naturalPerson.name.nameIdentifier`), and fields the service does not use.
 */
const RECORDED_READ = {
  transfer: {
    "@id": "3f1c2b9a-6d7e-4c1f-9a2b-8e7d6c5b4a39",
    id: "3f1c2b9a-6d7e-4c1f-9a2b-8e7d6c5b4a39",
    status: "INCOMING",
    direction: "INCOMING",
    transactionType: "TRANSFER",
    isTravelRule: true,
    initiator: THEM,
    ref: "withdrawal-001",
    asset: ETH,
    amount: "2.5",
    createdTime: "2026-11-27T10:00:00.000Z",
    amounts: [{ amount: "2.5", currency: "ETH" }, { amount: "7500.00", currency: "USD" }],
    log: [{ at: "2026-11-27T10:00:00.000Z", type: "created" }],
    policyEvaluations: [{ "@type": "REQUIRE_PRESENTATION", status: "COMPLETED" }],
    originator: {
      "@id": "did:email:sender@example.com",
      originatorPerson: [
        {
          naturalPerson: {
            name: { nameIdentifier: [{ primaryIdentifier: "Smith", secondaryIdentifier: "John", naturalPersonNameIdentifierType: "LEGL" }] },
            dateAndPlaceOfBirth: { dateOfBirth: "1990-01-15", placeOfBirth: "Boston" },
            geographicAddress: [{ country: "US", addressType: "HOME", townName: "Boston" }],
          },
        },
      ],
      accountNumber: [`did:pkh:eip155:1:${SOURCE}`],
    },
    beneficiary: {
      "@id": "did:email:receiver@example.com",
      beneficiaryPerson: { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", naturalPersonNameIdentifierType: "LEGL" }] } } },
    },
    agents: [
      { "@id": `did:pkh:eip155:1:${SOURCE}`, for: THEM, role: "SourceAddress" },
      { "@id": THEM, for: "did:email:sender@example.com", role: "VASP", status: "AUTHORIZED", policies: [{ "@type": "REQUIRE_AUTHORIZATION" }] },
      { "@id": US, for: "did:email:receiver@example.com", role: "VASP", status: "PROCESSING" },
      { "@id": `did:pkh:eip155:1:${DEST}`, for: US, role: "SettlementAddress" },
    ],
  },
};

describe("recorded Notabene messages through our decoders", () => {
  test("a decrypted read: parties, agents by role, addresses from did:pkh CAIP-10, 2023 persons read in Caravan's spelling", () => {
    const r = readTransfer(RECORDED_READ);
    if (!r.ok) throw new Error(r.path);
    const tx = r.tx;
    expect(tx).toMatchObject({ id: RECORDED_READ.transfer["@id"], ref: "withdrawal-001", status: "INCOMING", direction: "INCOMING", asset: ETH, amount: "2.5" });
    expect({ originator: tx.originatorAddress, beneficiary: tx.beneficiaryAddress, chain: tx.beneficiaryChain }).toEqual({ originator: SOURCE, beneficiary: DEST, chain: "eip155:1" });
    // Our side by our DID among the VASP agents, the counterparty's likewise.
    expect(roleOf(tx, US)).toBe("BENEFICIARY");
    expect(agentOf(tx, "ORIGINATOR")).toMatchObject({ did: THEM, status: "AUTHORIZED" });
    expect(agentChainOk(tx)).toBe(true);
    expect(tx.ivms101.originator!.originatorPersons).toEqual([
      {
        naturalPerson: {
          name: { nameIdentifier: [{ primaryIdentifier: "Smith", secondaryIdentifier: "John", nameIdentifierType: "LEGL" }] },
          dateAndPlaceOfBirth: { dateOfBirth: "1990-01-15", placeOfBirth: "Boston" },
          geographicAddress: [{ country: "US", addressType: "HOME", townName: "Boston" }],
        },
      },
    ] as never);
    // The account written as a CAIP-10 DID is compared as its bare address.
    expect(tx.ivms101.originator!.accountNumber).toEqual([SOURCE]);
    expect(tx.ivms101.beneficiary!.beneficiaryPersons).toEqual([{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] } } }] as never);
    expect(bindingMismatch(tx, { assetId: ETH, amount: "2.50", originatorAddress: SOURCE, beneficiaryAddress: DEST, originatorDid: THEM, beneficiaryDid: US })).toBeNull();
  });

  test("the same read with IVMS101 2020 under `ivms101` (a counterparty on the older edition) reads to the same persons", () => {
    const { originator, beneficiary, ...rest } = RECORDED_READ.transfer;
    const r = readTx({
      transfer: {
        ...rest,
        originator: { "@id": originator["@id"] },
        beneficiary: { "@id": beneficiary["@id"] },
        ivms101: {
          originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Smith", secondaryIdentifier: "John", nameIdentifierType: "LEGL" }] } } }], accountNumber: [SOURCE] },
        },
      },
    });
    expect(r!.ivms101.originator!.originatorPersons[0].naturalPerson!.name.nameIdentifier).toEqual([{ primaryIdentifier: "Smith", secondaryIdentifier: "John", nameIdentifierType: "LEGL" }] as never);
    expect(r!.ivms101.beneficiary).toBeUndefined();
  });

  test("a settled transfer (status SETTLED, settlementId, memoTag, settlementAddress instead of an address agent)", () => {
    const r = readTx({
      transfer: {
        "@id": "9b6f",
        status: "SETTLED",
        asset: "xrpl:0/slip44:144",
        amount: "50000",
        memoTag: "12345",
        settlementAddress: "xrpl:0:rLNaPoKeeBjZe2qs6x52yVPZpZ8td4dc6w",
        settlementId: "xrpl:0:tx/ABCDEF",
        originator: { "@id": "did:web:o.example:customers:1" },
        beneficiary: { "@id": "did:pkh:xrpl:0:rLNaPoKeeBjZe2qs6x52yVPZpZ8td4dc6w" },
        agents: [
          { "@id": US, for: "did:web:o.example:customers:1", role: "VASP", status: "AUTHORIZED" },
          { "@id": THEM, for: "did:pkh:xrpl:0:rLNaPoKeeBjZe2qs6x52yVPZpZ8td4dc6w", role: "VASP", status: "SETTLED" },
        ],
      },
    });
    expect(r).toMatchObject({ status: "SETTLED", settlement: { id: "xrpl:0:tx/ABCDEF" }, memo: "12345", beneficiaryAddress: "rLNaPoKeeBjZe2qs6x52yVPZpZ8td4dc6w", beneficiaryChain: "xrpl:0", ref: null });
    expect(roleOf(r!, US)).toBe("ORIGINATOR");
  });

  test("fields we do not need never refuse: unknown fields, an agent's non-string name, unknown roles and statuses are read", () => {
    const t = structuredClone(RECORDED_READ.transfer) as Record<string, unknown>;
    (t.agents as Record<string, unknown>[])[1].name = 42;
    (t.agents as Record<string, unknown>[])[1].email = "not-an-email";
    (t.agents as Record<string, unknown>[])[2].status = "SOMETHING_NEW";
    (t.agents as Record<string, unknown>[])[0].status = null;
    (t.agents as Record<string, unknown>[])[3].for = null;
    t.direction = 7;
    t.originator = { ...(t.originator as object), name: { first: "x" }, website: 7 };
    t.flags = [{ type: "MANUAL_REVIEW", note: "x" }];
    t.futureField = { nested: [1, 2, 3] };
    const r = readTx({ transfer: t, meta: { requestId: "x" } });
    expect(r).not.toBeNull();
    expect(r!.flags).toEqual(["MANUAL_REVIEW"]);
    expect(agentOf(r!, "ORIGINATOR")!.name).toBeNull();
  });

  test.each([
    [{}, "transfer"],
    [{ transfer: { ...RECORDED_READ.transfer, "@id": undefined, id: undefined } }, "transfer.@id"],
    [{ transfer: { ...RECORDED_READ.transfer, amount: 2.5 } }, "transfer.amount"],
    [{ transfer: { ...RECORDED_READ.transfer, asset: "ETH" } }, "transfer.asset"],
    [{ transfer: { ...RECORDED_READ.transfer, originator: {} } }, "transfer.originator.@id"],
    [{ transfer: { ...RECORDED_READ.transfer, agents: [{ role: "VASP" }] } }, "transfer.agents[0].@id"],
    [{ transfer: { ...RECORDED_READ.transfer, agents: [{ "@id": "not an address", role: "SettlementAddress" }] } }, "transfer.agents[0].@id"],
    [{ transfer: { ...RECORDED_READ.transfer, beneficiary: { "@id": "did:email:r@example.com", beneficiaryPerson: [{ naturalPerson: { name: { nameIdentifier: "Jane Doe" } } }] } } }, "transfer.beneficiary.beneficiaryPerson[0].naturalPerson.name.nameIdentifier"],
  ])("not understood: %j → the path %s, never a value", (answer, path) => {
    const r = readTransfer(answer);
    expect(r).toEqual({ ok: false, path });
  });
});

describe("recorded webhook envelopes", () => {
  const ev = (message: string, payload: Record<string, unknown>) => ({ message, payload: { for: US, id: "3f1c2b9a", ...payload }, version: "1.0.0" });
  test.each([
    ["notification.transferCreated", {}],
    ["notification.transferStatusChanged", { fromStatus: "PENDING", toStatus: "AUTHORIZED", settlementId: "settlement-456" }],
    ["notification.transferAgentStatusChanged", { agentID: "agent-456", fromStatus: "processing", toStatus: "completed" }],
    ["tap.requirePresentationSatisfied", {}],
    ["tap.requireRelationshipConfirmationRequested", { confirmCallbackUrl: "/entities/x/relationships" }],
  ])("%s is acted on (the transfer read again)", (message, payload) => {
    expect(readEvent(ev(message, payload), US)).toEqual({ kind: "transfer", message, providerTransferId: "3f1c2b9a" });
  });
  test("a Flow event is verified and ignored", () => {
    expect(readEvent(ev("flow.payout.created", { amount: "1300", currency: "USD" }), US)).toEqual({ kind: "ignored", message: "flow.payout.created" });
  });
  test("our verification accepts the standardwebhooks package's signature, and the package accepts ours", () => {
    const secret = "whsec_" + btoa("a webhook signing secret of 32 b");
    const body = JSON.stringify(ev("notification.transferStatusChanged", { toStatus: "SETTLED" }));
    const now = Date.now();
    const lib = new Webhook(secret);
    const theirs = lib.sign("msg_1", new Date(now), body);
    expect(verify(secret, { id: "msg_1", timestamp: String(Math.floor(now / 1000)), signature: theirs }, new TextEncoder().encode(body), now)).toEqual({ ok: true });
    const ours = sign(webhookKey(secret)!, "msg_2", Math.floor(now / 1000), new TextEncoder().encode(body));
    expect(lib.verify(body, { "webhook-id": "msg_2", "webhook-timestamp": String(Math.floor(now / 1000)), "webhook-signature": ours })).toEqual(JSON.parse(body));
  });
});

describe("our encoders' output through the providers' libraries", () => {
  const input = { ref: "trf_01HZX", assetId: ETH, amount: "1.25", ourDid: US, beneficiaryVaspDid: THEM, originatorAddress: SOURCE, beneficiaryAddress: DEST, memo: null };

  test("create body: Notabene's fields and validations; TAIP-5 agents by TAP's schema; CAIP-19, amount and CAIP-10 by the SDK's", () => {
    const body = createBody(input);
    expect(/^[a-zA-Z0-9_-]{1,64}$/.test(body.ref)).toBe(true);
    expect(CAIP19Schema.safeParse(body.asset).success).toBe(true);
    expect(AmountSchema.safeParse(body.amount).success).toBe(true);
    expect(body.agents.length).toBeGreaterThanOrEqual(1);
    for (const a of body.agents) {
      // TAP's agent schema, with `@id`/`for` checked apart: the SDK's DID pattern refuses the colons that did:pkh
      // (TAP's own address form) and path DIDs carry.
      expect(AgentSchema.omit({ "@id": true, for: true }).safeParse(a).success).toBe(true);
      expect(["VASP", "Custodian", "SettlementAddress", "SourceAddress", "Gateway"]).toContain(a.role);
      for (const did of [a["@id"], a.for]) {
        if (did.startsWith("did:pkh:")) expect(CAIP10Schema.safeParse(did.slice(8)).success).toBe(true);
        else expect(DIDSchema.safeParse(did).success).toBe(true);
      }
    }
    expect(DIDSchema.safeParse(`did:pkh:eip155:1:${DEST}`).success).toBe(false);
    // Both parties by DID (3–255 characters); one VASP agent for each; the addresses for their VASPs.
    for (const p of [body.originator["@id"], body.beneficiary["@id"]]) expect(p.length >= 3 && p.length <= 255 && p.startsWith("did:")).toBe(true);
    expect(body.agents.filter((a) => a.role === "VASP")).toEqual([
      { "@id": US, for: body.originator["@id"], role: "VASP" },
      { "@id": THEM, for: body.beneficiary["@id"], role: "VASP" },
    ]);
    expect(body.agents.find((a) => a.role === "SettlementAddress")).toEqual({ "@id": `did:pkh:eip155:1:${DEST}`, for: THEM, role: "SettlementAddress" });
    expect(body.agents.find((a) => a.role === "SourceAddress")).toEqual({ "@id": `did:pkh:eip155:1:${SOURCE}`, for: US, role: "SourceAddress" });
    expect(body).not.toHaveProperty("memoTag");
    expect(createBody({ ...input, memo: "12345" }).memoTag).toBe("12345");
    // Without a source address, the originator is named under our entity DID (no personal data).
    expect(createBody({ ...input, originatorAddress: null }).originator["@id"]).toBe(`${US}:transfers:trf_01HZX:originator`);
  });

  test("what our reader makes of a transfer the way Notabene returns our create is bound to it", () => {
    const body = createBody(input);
    // Notabene's create answer echoes the transfer with its own fields and the agents' statuses.
    const answer = { transfer: { ...body, "@id": "c0ffee", id: "c0ffee", status: "PENDING", initiator: US, direction: "OUTGOING", agents: body.agents.map((a) => (a.role === "VASP" ? { ...a, status: "PROCESSING" } : a)) } };
    const tx = readTx(answer)!;
    expect(roleOf(tx, US)).toBe("ORIGINATOR");
    expect(agentChainOk(tx)).toBe(true);
    expect(bindingMismatch(tx, { assetId: ETH, amount: "1.25", originatorAddress: SOURCE, beneficiaryAddress: DEST, originatorDid: US, beneficiaryDid: THEM })).toBeNull();
  });

  test("append body: IVMS101 2023 that Notabene's ivms101 package validates (persons complete enough for its C-rules)", () => {
    const jane = person("Doe", "Jane", "NL", { dateAndPlaceOfBirth: { dateOfBirth: "1990-01-15", placeOfBirth: "Utrecht" }, geographicAddress: [{ addressType: "HOME", addressLine: ["Oudegracht 1"], townName: "Utrecht", country: "NL" }] });
    const ruth = person("Harbour", "Ruth", "DE", { geographicAddress: [{ addressType: "HOME", addressLine: ["Hafenstraße 2"], townName: "Hamburg", country: "DE" }] });
    const body = appendBody({ originator: "did:pkh:eip155:1:" + SOURCE, beneficiary: "did:pkh:eip155:1:" + DEST }, { originator: { persons: [jane], address: SOURCE }, beneficiary: { persons: [ruth], address: DEST } });
    expect(body.originator).toEqual({ "@id": "did:pkh:eip155:1:" + SOURCE });
    const ivms = body.ivms101 as { originator: { originatorPerson: unknown[]; accountNumber: string[] }; beneficiary: { beneficiaryPerson: unknown[] } };
    expect(() => validateIvms101(ivms, { version: "2023" })).not.toThrow();
    expect(ivms.originator.accountNumber).toEqual([SOURCE]);
    expect(JSON.stringify(ivms)).not.toContain('"nameIdentifierType"');
    expect((ivms.originator.originatorPerson[0] as { naturalPerson: { name: { nameIdentifier: unknown[] } } }).naturalPerson.name.nameIdentifier).toEqual([{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", naturalPersonNameIdentifierType: "LEGL" }]);
    // Only the side given is sent (an incoming transfer appends its beneficiary only).
    expect(Object.keys(appendBody({ originator: "did:a:b", beneficiary: "did:a:c" }, { beneficiary: { persons: [ruth], address: DEST, memo: "7" } }).ivms101)).toEqual(["beneficiary"]);
  });

  test("reject, settle and relationship bodies: Notabene's fields", () => {
    const reasons = ["COUNTERPARTY_RISK", "SANCTION_SCREENING", "COMPLIANCE_POLICIES", "OTHER"];
    for (const r of ["SANCTION_SCREENING", "COMPLIANCE_POLICIES"] as const) {
      expect(rejectBody(r)).toEqual({ reason: r });
      expect(reasons).toContain(rejectBody(r).reason);
    }
    expect(settleBody("0x" + "ab".repeat(32))).toEqual({ settlementId: "0x" + "ab".repeat(32) });
    expect(relationshipBody(ETH, DEST, US)).toEqual({ from: `did:pkh:eip155:1:${DEST}`, to: US });
  });
});

describe("answers over real loopback HTTP (recorded bodies)", () => {
  const recorded: Record<string, { status: number; body: unknown }> = {
    "POST /oauth/token": { status: 200, body: { access_token: "eyJhbGc.recorded", expires_in: 86400, token_type: "Bearer" } },
    "POST /tx": { status: 201, body: RECORDED_READ },
    "GET /tx/3f1c": { status: 200, body: RECORDED_READ },
    "POST /append": { status: 202, body: { message: "Transfer appended successfully with encrypted PII" } },
    "POST /authorize": { status: 202, body: { message: "Transfer authorization accepted" } },
    "POST /reject": { status: 200, body: { message: "Transfer rejected successfully" } },
    "POST /settle": { status: 202, body: { message: "Transfer settlement accepted" } },
    "POST /checks/internal-checks": { status: 200, body: { id: "uuid", transferId: "3f1c", entityDid: US, type: "REQUIRE_INTERNAL_CHECKS", status: "COMPLETE", policyData: { confirmedBy: US, confirmedAt: "2026-11-27T10:00:00.000Z" }, createdAt: "2026-11-27T10:00:00.000Z", updatedAt: "2026-11-27T10:00:00.000Z" } },
    "POST /checks/beneficiary-name-matching": { status: 200, body: { id: "uuid", transferId: "3f1c", entityDid: US, type: "REQUIRE_BENEFICIARY_NAME_MATCHING", status: "COMPLETE" } },
    "POST /relationships": { status: 201, body: { relationship: { "@id": "uuid", from: "did:pkh:eip155:1:0x1", to: US, custodian: null, status: "UNCONFIRMED", createdTime: "2026-11-27T10:00:00.000Z" } } },
  };
  const seen: { method: string; path: string; body: unknown }[] = [];
  let server: ReturnType<typeof Bun.serve>;
  let client: ProviderAClient;
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const u = new URL(req.url);
        const body = req.method === "POST" ? await req.json() : null;
        seen.push({ method: req.method, path: decodeURIComponent(u.pathname), body });
        const key = Object.keys(recorded).find((k) => {
          const [m, tail] = k.split(" ");
          return m === req.method && (u.pathname.endsWith(tail) || (tail.startsWith("/tx/") && u.pathname.includes("/tx/")));
        });
        const r = key ? recorded[key] : { status: 404, body: { error: "Not Found" } };
        return Response.json(r.body, { status: r.status });
      },
    });
    const url = `http://127.0.0.1:${server.port}`;
    const s = checkSettings({ apiUrl: url, clientId: "c", clientSecret: "s", vaspDid: US, webhookSecret: "whsec_" + btoa("k") }, [url]);
    if (!s.ok) throw new Error(s.problem);
    clearTokenCache();
    client = new ProviderAClient(s.settings, url, providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" }) as unknown as ProviderAFetch, Date.now);
  });
  afterAll(() => server?.stop(true));

  test("create (201 { transfer }) and read (200 { transfer }) are decoded; append, authorize, reject, settle and relationships take Notabene's message answers", async () => {
    const created = await client.createTx({ ref: "trf_1", assetId: ETH, amount: "2.5", beneficiaryVaspDid: THEM, originatorAddress: null, beneficiaryAddress: DEST, memo: null });
    expect(created.ok && created.body.id).toBe(RECORDED_READ.transfer["@id"]);
    const read = await client.getTx("3f1c");
    expect(read.ok && read.body.ivms101.originator!.originatorPersons.length).toBe(1);
    expect(seen.at(-1)).toMatchObject({ method: "GET", path: `/entities/${US}/tx/3f1c` });
    const tx = { id: "3f1c", originatorDid: "did:email:a@b.c", beneficiaryDid: "did:email:d@e.f" };
    expect(await client.append(tx, { beneficiary: { persons: [person("Doe", "Jane")], address: DEST } })).toEqual({ ok: true, status: 202, body: null });
    expect(seen.at(-1)!.path).toBe(`/entities/${US}/transfers/3f1c/append`);
    expect(await client.check("3f1c", "beneficiary-name-matching")).toEqual({ ok: true, status: 200, body: null });
    expect(seen.at(-1)!.path).toBe(`/entities/${US}/tx/3f1c/checks/beneficiary-name-matching`);
    expect(await client.check("3f1c", "internal-checks")).toEqual({ ok: true, status: 200, body: null });
    expect(await client.authorize("3f1c")).toEqual({ ok: true, status: 202, body: null });
    expect(await client.reject("3f1c", "COMPLIANCE_POLICIES")).toEqual({ ok: true, status: 200, body: null });
    expect(await client.settle("3f1c", "0xabc")).toEqual({ ok: true, status: 202, body: null });
    expect(await client.confirmRelationship(ETH, DEST)).toEqual({ ok: true, status: 201, body: null });
    expect(seen.at(-1)).toMatchObject({ path: `/entities/${US}/relationships`, body: { from: `did:pkh:eip155:1:${DEST}`, to: US } });
  });

  test("a read in a shape we do not understand: INVALID_RESPONSE with the failing field's path, reported without the data", async () => {
    const reported: [string, string][] = [];
    const s = checkSettings({ apiUrl: `http://127.0.0.1:${server.port}`, clientId: "c", clientSecret: "s", vaspDid: US, webhookSecret: "whsec_" + btoa("k") }, [`http://127.0.0.1:${server.port}`]);
    if (!s.ok) throw new Error(s.problem);
    const c = new ProviderAClient(s.settings, `http://127.0.0.1:${server.port}`, providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" }) as unknown as ProviderAFetch, Date.now, (call, path) => reported.push([call, path]));
    const saved = recorded["GET /tx/3f1c"];
    // The flat object of an older misreading: no `transfer` envelope.
    recorded["GET /tx/3f1c"] = { status: 200, body: { id: "3f1c", status: "PENDING", beneficiaryAddress: DEST, ivms101: { originator: { originatorPersons: [{ naturalPerson: { name: "John Smith" } }] } } } };
    try {
      expect(await c.getTx("3f1c")).toEqual({ ok: false, code: "INVALID_RESPONSE", status: 200, path: "transfer" });
      expect(reported).toEqual([["read", "transfer"]]);
      expect(JSON.stringify(reported)).not.toContain("Smith");
    } finally {
      recorded["GET /tx/3f1c"] = saved;
    }
  });
});
