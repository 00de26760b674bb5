// provider_b (CodeVASP) contract: messages written here by hand from CodeVASP's published guide and examples, signed and
// sealed with tweetnacl + ed2curve (NaCl, the box and signatures CodeVASP's libsodium samples make), through Caravan's adapter and callbacks;
// and Caravan's own requests checked with those libraries. Nothing here is produced by Caravan's encoder for Caravan.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import nacl from "tweetnacl";
// @ts-expect-error ed2curve ships no type declarations
import ed2curveUntyped from "ed2curve";
import { verifyRequest, openPayload } from "../../src/adapters/providers/provider_b/crypto.ts";
import { buildTransferMessage, fromWirePersons, readIvms101 } from "../../src/adapters/providers/provider_b/wire.ts";
import { ProviderBClient } from "../../src/adapters/providers/provider_b/client.ts";
import { validatePersons } from "../../src/domain/ivms101/index.ts";
import { closedLoopbackOrigin, runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { tempDir } from "../support/tmp.ts";
import { JANE, RICHARD } from "../support/persons.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const ed2curve = ed2curveUntyped as { convertPublicKey(pk: Uint8Array): Uint8Array | null; convertSecretKey(sk: Uint8Array): Uint8Array };

// ---------------------------------------------------------------------------------------------
// The counterparty's side, by hand: base64 via Buffer, keys and boxes via tweetnacl.

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const unb64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Dev 02 §8 and the Go sample: datetime bytes, then the body string, then the nonce as four big-endian bytes. */
function theirSignedBytes(datetime: string, body: string, nonce: number): Uint8Array {
  const n = new Uint8Array([(nonce >>> 24) & 255, (nonce >>> 16) & 255, (nonce >>> 8) & 255, nonce & 255]);
  return new Uint8Array([...utf8(datetime), ...utf8(body), ...n]);
}

/** Dev 02 §7 and the Go sample's `box.Seal(nonce[:], msg, &nonce, pk, sk)`: base64(nonce ‖ box). */
function theirSeal(plaintext: string, recipientEdPublic: Uint8Array, senderEdSecret: Uint8Array): string {
  const nonce = nacl.randomBytes(24);
  const box = nacl.box(utf8(plaintext), nonce, ed2curve.convertPublicKey(recipientEdPublic)!, ed2curve.convertSecretKey(senderEdSecret));
  return b64(new Uint8Array([...nonce, ...box]));
}

function theirOpen(sealed: string, senderEdPublic: Uint8Array, recipientEdSecret: Uint8Array): unknown {
  const raw = unb64(sealed);
  const plain = nacl.box.open(raw.subarray(24), raw.subarray(0, 24), ed2curve.convertPublicKey(senderEdPublic)!, ed2curve.convertSecretKey(recipientEdSecret));
  expect(plain).not.toBeNull();
  return JSON.parse(new TextDecoder().decode(plain!));
}

const alpine = nacl.sign.keyPair();
const caravan = nacl.sign.keyPair();
const CARAVAN_SEED = b64(caravan.secretKey.subarray(0, 32));

// ---------------------------------------------------------------------------------------------
// Example messages, written out as the published guide shows them.

/** CodeVASP's natural-to-natural authorization example (Dev 04), trimmed to what a member must send. */
const EXAMPLE_2020 = {
  ivms101: {
    Originator: {
      originatorPersons: [
        {
          naturalPerson: {
            name: {
              nameIdentifier: [{ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", nameIdentifierType: "LEGL" }],
              localNameIdentifier: [{ primaryIdentifier: "로버트 반스", secondaryIdentifier: "", nameIdentifierType: "LEGL" }],
            },
            dateAndPlaceOfBirth: { dateOfBirth: "1990-01-01", placeOfBirth: "LA" },
            customerIdentification: "customer-0042",
            countryOfResidence: "US",
          },
        },
      ],
      accountNumber: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    },
    Beneficiary: {
      beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] } } }],
      accountNumber: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    },
    OriginatingVASP: {
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: "Alpine Exchange AG", legalPersonNameIdentifierType: "LEGL" }] },
          nationalIdentification: { nationalIdentifier: "CHE-123.456.789", nationalIdentifierType: "RAID", registrationAuthority: "RA000548" },
          countryOfRegistration: "CH",
        },
      },
    },
  },
};

/** The same parties in the IVMS101 2023 edition: `originatorPerson`, `beneficiaryPerson`, `naturalPersonNameIdentifierType`. */
function example2023(beneficiaryAccount: string) {
  return {
    ivms101: {
      Originator: {
        originatorPerson: [
          {
            naturalPerson: {
              name: { nameIdentifier: [{ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", naturalPersonNameIdentifierType: "LEGL" }] },
              customerIdentification: "customer-0042",
              countryOfResidence: "US",
            },
          },
        ],
        accountNumber: ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
      },
      Beneficiary: {
        beneficiaryPerson: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", naturalPersonNameIdentifierType: "LEGL" }] } } }],
        accountNumber: [beneficiaryAccount],
      },
      OriginatingVASP: {
        originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Alpine Exchange AG", legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "CH" } },
      },
      payloadMetadata: { payloadVersion: "101.2023" },
    },
  };
}

// ---------------------------------------------------------------------------------------------

describe("signatures: X-Code-Req-Signature over datetime ‖ body ‖ nonce (4 bytes, big-endian)", () => {
  const body = JSON.stringify({ transferId: "1f0c8d0e-0000-4000-8000-000000000001", txid: "0xabc", vout: "0" });

  test.each([
    ["the guide's form", "2026-11-27T10:15:30Z"],
    ["the Go sample's form", "2026-11-27T10:15:30+0000"],
  ])("a request the counterparty signed with tweetnacl verifies with our check (%s); a changed body or nonce does not", (_label, datetime) => {
    const nonce = 4_000_000_123;
    const sig = b64(nacl.sign.detached(theirSignedBytes(datetime, body, nonce), alpine.secretKey));
    expect(verifyRequest(b64(alpine.publicKey), datetime, utf8(body), nonce, sig)).toBe(true);
    expect(verifyRequest(b64(alpine.publicKey), datetime, utf8(body.replace("0xabc", "0xabd")), nonce, sig)).toBe(false);
    expect(verifyRequest(b64(alpine.publicKey), datetime, utf8(body), nonce + 1, sig)).toBe(false);
    expect(verifyRequest(b64(caravan.publicKey), datetime, utf8(body), nonce, sig)).toBe(false);
  });
});

describe("our outbound requests, checked by a counterparty written on tweetnacl (real loopback HTTP)", () => {
  const seen: { path: string; headers: Headers; body: Uint8Array }[] = [];
  let server: ReturnType<typeof Bun.serve>;
  let client: ProviderBClient;
  /** What the hand-written beneficiary answers to an authorization: its 2023-edition message, sealed for the sender. */
  let answerPlaintext = "";

  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        const body = new Uint8Array(await req.arrayBuffer());
        const path = new URL(req.url).pathname;
        seen.push({ path, headers: req.headers, body });
        const json = (v: unknown) => Response.json(v);
        if (path === "/v1/code/vasps") {
          return json({
            vasps: [{ vaspEntityId: "ALPINE", vaspName: "Alpine", vaspLegalName: "Alpine Exchange AG", countryOfRegistration: "CH", health: "up", allianceName: "code", pubkeys: [{ pubkey: b64(alpine.publicKey), expiresAt: "2099-01-01T00:00:00Z" }], extraField: { ignored: true } }],
          });
        }
        if (path === "/v1/code/transfer/ALPINE") {
          const request = JSON.parse(new TextDecoder().decode(body));
          const sealed = theirSeal(answerPlaintext, unb64(req.headers.get("X-Code-Req-PubKey")!), alpine.secretKey);
          return json({ result: "verified", reasonType: "", reasonMsg: "", transferId: request.transferId, beneficiaryVasp: {}, payload: sealed });
        }
        return json({ errorType: "NOT_FOUND" });
      },
    });
    client = new ProviderBClient({ apiUrl: `http://127.0.0.1:${server.port}`, entityId: "CARAVAN-1", seedBase64: CARAVAN_SEED, fetch: globalThis.fetch, allowHttp: true });
  });
  afterAll(() => server?.stop(true));

  test("a signed GET verifies with nacl.sign.detached.verify over the bytes received; the directory's extra fields are tolerated", async () => {
    const r = await client.listVasps();
    expect(r.ok && r.body.vasps.map((v) => v.vaspEntityId)).toEqual(["ALPINE"]);
    const q = seen.at(-1)!;
    const datetime = q.headers.get("X-Code-Req-Datetime")!;
    const nonce = Number(q.headers.get("X-Code-Req-Nonce"));
    expect(q.headers.get("X-Request-Origin")).toBe("code:CARAVAN-1");
    expect(q.headers.get("X-Code-Req-PubKey")).toBe(b64(caravan.publicKey));
    expect(datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const signed = theirSignedBytes(datetime, new TextDecoder().decode(q.body), nonce);
    expect(nacl.sign.detached.verify(signed, unb64(q.headers.get("X-Code-Req-Signature")!), caravan.publicKey)).toBe(true);
  });

  test("our sealed authorization opens with nacl.box.open; the beneficiary's 2023-edition answer, sealed with nacl.box, is read by ours", async () => {
    answerPlaintext = JSON.stringify({
      ivms101: {
        ...example2023("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359").ivms101,
        BeneficiaryVASP: { beneficiaryVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Alpine Exchange AG", legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "CH" } } },
      },
    });
    const transferId = crypto.randomUUID();
    const message = buildTransferMessage({
      originatorPersons: [JANE],
      originatorAccount: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      beneficiaryPersons: [RICHARD],
      beneficiaryAccount: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      originatingVasp: { legalName: "Caravan Test VASP", country: "NL" },
    });
    const r = await client.transfer("ALPINE", { transferId, currency: "ETH", amount: "1.5", tradePrice: "4800.00", isExceedingThreshold: true, address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", network: "ethereum", message }, { remotePubKey: b64(alpine.publicKey) });

    const q = seen.at(-1)!;
    expect(q.path).toBe("/v1/code/transfer/ALPINE");
    expect(q.headers.get("X-Code-Req-Remote-PubKey")).toBe(b64(alpine.publicKey));
    const sent = JSON.parse(new TextDecoder().decode(q.body));
    // Every documented value is a string (Dev 04), the flag included.
    expect(sent).toMatchObject({ transferId, currency: "ETH", amount: "1.5", tradePrice: "4800.00", tradeCurrency: "USD", isExceedingThreshold: "true" });
    const signed = theirSignedBytes(q.headers.get("X-Code-Req-Datetime")!, new TextDecoder().decode(q.body), Number(q.headers.get("X-Code-Req-Nonce")));
    expect(nacl.sign.detached.verify(signed, unb64(q.headers.get("X-Code-Req-Signature")!), caravan.publicKey)).toBe(true);
    const opened = theirOpen(sent.payload, caravan.publicKey, alpine.secretKey) as any;
    expect(opened.ivms101.Originator.originatorPersons[0].naturalPerson.name.nameIdentifier[0]).toEqual({ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" });
    expect(opened.ivms101.OriginatingVASP.originatingVASP.legalPerson.countryOfRegistration).toBe("NL");

    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.body.result).toBe("verified");
    const persons = fromWirePersons(r.body.ivms101!.Beneficiary!.beneficiaryPersons);
    expect(persons).toEqual([{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] } } }]);
    expect(validatePersons(persons)).toEqual([]);
  });
});

describe("reading a counterparty's IVMS101 (either edition)", () => {
  test("CodeVASP's published example (2020 names, PascalCase entities) reads, and its persons are valid IVMS101", () => {
    const r = readIvms101(EXAMPLE_2020);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const originator = fromWirePersons(r.value.Originator!.originatorPersons);
    expect(originator[0]!.naturalPerson!.name.nameIdentifier[0]).toEqual({ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", nameIdentifierType: "LEGL" });
    // An empty secondaryIdentifier (as the example sends a local name) reads as none.
    expect(originator[0]!.naturalPerson!.name.localNameIdentifier).toEqual([{ primaryIdentifier: "로버트 반스", nameIdentifierType: "LEGL" }]);
    expect(validatePersons(originator)).toEqual([]);
    expect(r.value.OriginatingVASP!.originatingVASP.legalPerson.countryOfRegistration).toBe("CH");
  });

  test("the 2023 edition reads into the 2020 spelling: originatorPerson → originatorPersons, naturalPersonNameIdentifierType → nameIdentifierType", () => {
    const r = readIvms101(example2023("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const originator = fromWirePersons(r.value.Originator!.originatorPersons);
    expect(originator).toEqual([
      { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", nameIdentifierType: "LEGL" }] }, customerIdentification: "customer-0042", countryOfResidence: "US" } },
    ]);
    expect(validatePersons(originator)).toEqual([]);
    expect(fromWirePersons(r.value.Beneficiary!.beneficiaryPersons)[0]!.naturalPerson!.name.nameIdentifier[0]!.nameIdentifierType).toBe("LEGL");
    expect(r.value.Beneficiary!.accountNumber).toEqual(["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"]);
  });

  test("the 2023 edition under the standard's camelCase entity keys, a single person object and the VASP as a bare person, reads too", () => {
    const r = readIvms101({
      ivms101: {
        originator: {
          originatorPerson: { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", naturalPersonNameIdentifierType: "LEGL" }] } } },
          accountNumber: ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
        },
        beneficiary: { beneficiaryPerson: [], accountNumber: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"] },
        originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Alpine Exchange AG", legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "CH" } },
      },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.Originator!.originatorPersons).toHaveLength(1);
    expect(r.value.Originator!.originatorPersons[0]!.naturalPerson!.name.nameIdentifier[0]!.nameIdentifierType).toBe("LEGL");
    expect(r.value.Beneficiary).toEqual({ beneficiaryPersons: [], accountNumber: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"] });
    expect(r.value.OriginatingVASP!.originatingVASP.legalPerson.name.nameIdentifier[0]!.legalPersonName).toBe("Alpine Exchange AG");
  });

  test("an address's post code as CodeVASP's example spells it (postcode) or as IVMS101 does (postCode) reads as postCode, valid IVMS101; we send postCode", () => {
    const address = (spelling: Record<string, string>): any => ({ addressType: "HOME", streetName: "Sunset Boulevard", buildingNumber: "8800", townName: "Los Angeles", country: "US", ...spelling });
    const m = structuredClone(EXAMPLE_2020) as any;
    m.ivms101.Originator.originatorPersons[0].naturalPerson.geographicAddress = [address({ postcode: "90069" })];
    m.ivms101.Beneficiary.beneficiaryPersons[0].naturalPerson.geographicAddress = [address({ postCode: "90210" })];
    m.ivms101.OriginatingVASP.originatingVASP.legalPerson.geographicAddress = [{ ...address({ postcode: "8001", postCode: "8002" }), addressType: "BIZZ", country: "CH" }];
    const r = readIvms101(m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const originator = fromWirePersons(r.value.Originator!.originatorPersons);
    expect(originator[0]!.naturalPerson!.geographicAddress).toEqual([address({ postCode: "90069" })]);
    expect(validatePersons(originator)).toEqual([]);
    expect(fromWirePersons(r.value.Beneficiary!.beneficiaryPersons)[0]!.naturalPerson!.geographicAddress).toEqual([address({ postCode: "90210" })]);
    // Both given: IVMS101's spelling wins; the other is dropped.
    expect(r.value.OriginatingVASP!.originatingVASP.legalPerson.geographicAddress).toEqual([{ ...address({ postCode: "8002" }), addressType: "BIZZ", country: "CH" }]);
    // The message as received is left as it was.
    expect(m.ivms101.Originator.originatorPersons[0].naturalPerson.geographicAddress[0].postcode).toBe("90069");
    // What we send writes IVMS101's spelling.
    const sent = JSON.stringify(buildTransferMessage({ originatorPersons: originator, originatorAccount: "x", beneficiaryPersons: [JANE], beneficiaryAccount: "y", originatingVasp: { legalName: "Caravan", country: "NL" } }));
    expect(sent).toContain('"postCode":"90069"');
    expect(sent).not.toContain('"postcode"');
  });

  test("fields we do not need (payloadMetadata, transferPath, extra keys) never cause a refusal", () => {
    const m = structuredClone(EXAMPLE_2020) as any;
    m.ivms101.transferPath = { transferPath: [] };
    m.ivms101.payloadMetadata = { transliterationMethod: ["hang"] };
    m.ivms101.Originator.somethingNew = "x";
    expect(readIvms101(m).ok).toBe(true);
  });

  test.each([
    ["persons as a string", (m: any) => (m.ivms101.Originator.originatorPersons = "Robert Barnes"), "ivms101.Originator.originatorPersons"],
    ["no person list at all", (m: any) => delete m.ivms101.Originator.originatorPersons, "ivms101.Originator.originatorPersons"],
    ["a person that is neither natural nor legal", (m: any) => (m.ivms101.Originator.originatorPersons = [{ person: {} }]), "ivms101.Originator.originatorPersons"],
    ["an account number that is not a list of text", (m: any) => (m.ivms101.Beneficiary.accountNumber = [42]), "ivms101.Beneficiary.accountNumber"],
    ["a VASP without its legal person", (m: any) => (m.ivms101.OriginatingVASP = { originatingVASP: { naturalPerson: {} } }), "ivms101.OriginatingVASP.originatingVASP.legalPerson"],
    [
      "a 2023 natural person without nameIdentifier",
      (m: any) => {
        delete m.ivms101.Originator.originatorPersons;
        m.ivms101.Originator.originatorPerson = [{ naturalPerson: { name: { primaryIdentifier: "Barnes" } } }];
      },
      "ivms101.Originator.originatorPerson[0].naturalPerson.name.nameIdentifier",
    ],
  ])("a shape we do not understand (%s) is refused with the field path", (_label, mutate, path) => {
    const m = structuredClone(EXAMPLE_2020);
    mutate(m);
    const r = readIvms101(m);
    expect(r).toEqual({ ok: false, path });
  });
});

describe("end to end: a counterparty written on tweetnacl calls Caravan's provider_b callbacks", () => {
  const dir = tempDir();
  const db = join(dir, "pb-contract.db");
  let S: ChildServer;
  const { cli, newKey, call } = apiClient(db, () => S.url);
  let owner: string;
  let providerId: string;
  const JANE_ETH = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

  beforeAll(async () => {
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
    const k = await newKey("--env", "test", "--role", "owner");
    owner = k.key;
    const live = (await newKey("--env", "live", "--role", "owner")).key;
    S = await startServer({ CARAVAN_DB: db, PROVIDER_B_ALLOWED_IPS: "127.0.0.1" });
    // Callbacks never call the network: its address is a closed loopback port.
    const credentials = { apiUrl: await closedLoopbackOrigin(), vaspEntityId: "CARAVAN-1", privateKey: CARAVAN_SEED, legalName: "Caravan Test VASP", country: "NL" };
    for (const key of [owner, live]) expect((await call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
    expect((await call("/api/v2/providers/provider_b", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
    providerId = (await call("/api/v2/providers/provider_b", { key: owner })).body.data.callbackPaths[0].path.split("/")[7];
    const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
    expect((await call(`/api/v2/customers/${c.body.data.id}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
    const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId: c.body.data.id, network: "ethereum", address: JANE_ETH } });
    expect(w.status).toBe(201);
    await cli("wallets", "attest", "--id", w.body.data.id, "--note", "contract test", "--member", k.memberEmail);
  });
  afterAll(async () => {
    await S?.stop();
  });

  /** `POST v1/beneficiary/transfer` as CodeVASP forwards it: the member's origin and key, the payload sealed for Caravan. */
  async function authorize(plaintext: string) {
    const body = JSON.stringify({
      transferId: crypto.randomUUID(),
      currency: "ETH",
      amount: "2",
      historicalCost: "",
      tradePrice: "6400",
      tradeCurrency: "USD",
      isExceedingThreshold: "true",
      originatingVasp: {},
      payload: theirSeal(plaintext, caravan.publicKey, alpine.secretKey),
      network: "ethereum",
    });
    const res = await fetch(`${S.url}/api/system/trp/provider_b/test/connections/${providerId}/v1/beneficiary/transfer`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "CF-Connecting-IP": "127.0.0.1",
        "X-Request-Origin": "code:ALPINE",
        "X-Code-Req-PubKey": b64(alpine.publicKey),
        "X-Code-Req-Remote-PubKey": b64(caravan.publicKey),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function incomingCount(): Promise<number> {
    const r = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
    expect(r.status).toBe(200);
    return r.body.meta.total;
  }

  test("a 2023-edition authorization is verified, creates the incoming transfer with the originator's name, and the answer opens with nacl.box.open", async () => {
    const before = await incomingCount();
    const r = await authorize(JSON.stringify(example2023(JANE_ETH)));
    expect(r.status).toBe(200);
    expect(r.body.result).toBe("verified");
    expect(await incomingCount()).toBe(before + 1);
    const list = await call("/api/v2/transfers?direction=incoming&limit=1", { key: owner });
    const t = (await call(`/api/v2/transfers/${list.body.data[0].id}`, { key: owner })).body.data;
    // The originator's account and VASP come from the 2023-edition entities.
    expect(t.originator).toEqual({ address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", vaspId: "code:ALPINE", vaspName: "Alpine Exchange AG" });
    expect(t.state).toBe("awaiting_counterparty");
    // The answer copies the originator as read, in CodeVASP's (2020) spelling.
    const answer = theirOpen(r.body.payload, caravan.publicKey, alpine.secretKey) as any;
    expect(answer.ivms101.BeneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier[0].legalPersonName).toBe("Caravan Test VASP");
    expect(answer.ivms101.Originator.originatorPersons[0].naturalPerson.name.nameIdentifier[0]).toEqual({ primaryIdentifier: "Barnes", secondaryIdentifier: "Robert", nameIdentifierType: "LEGL" });
  });

  test("a 2023-edition beneficiary under another name is compared as any other: denied INPUT_NAME_MISMATCHED, nothing created", async () => {
    const before = await incomingCount();
    const m = example2023(JANE_ETH) as any;
    m.ivms101.Beneficiary.beneficiaryPerson[0].naturalPerson.name.nameIdentifier[0] = { primaryIdentifier: "Smith", secondaryIdentifier: "Alice", naturalPersonNameIdentifierType: "LEGL" };
    const r = await authorize(JSON.stringify(m));
    expect(r.body).toMatchObject({ result: "denied", reasonType: "INPUT_NAME_MISMATCHED" });
    expect(await incomingCount()).toBe(before);
  });

  test("a payload in a shape we do not understand: denied LACK_OF_INFORMATION, nothing created, one log line naming the field path and no personal data", async () => {
    const before = await incomingCount();
    const m = structuredClone(EXAMPLE_2020) as any;
    m.ivms101.Beneficiary.accountNumber = [JANE_ETH];
    m.ivms101.Originator.originatorPersons = "Robert Barnes";
    const r = await authorize(JSON.stringify(m));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ result: "denied", reasonType: "LACK_OF_INFORMATION" });
    expect(r.body.payload).toBeUndefined();
    expect(await incomingCount()).toBe(before);
    const lines = (await S.untilOutput("provider_b payload not understood")).split("\n").filter((l) => l.includes("provider_b payload not understood"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"path":"ivms101.Originator.originatorPersons"');
    expect(lines[0]).toContain('"sender":"code:ALPINE"');
    expect(lines[0]).not.toContain("Barnes");
    expect(lines[0]).not.toContain("Robert");
  });
});

// The adapter's own opener agrees with a box sealed by hand (the reverse of the test above, without a server).
test("a payload sealed with nacl.box by the counterparty opens with our openPayload", () => {
  const sealed = theirSeal(JSON.stringify(EXAMPLE_2020), caravan.publicKey, alpine.secretKey);
  const opened = openPayload(sealed, b64(alpine.publicKey), CARAVAN_SEED);
  expect(opened).toEqual({ ok: true, value: EXAMPLE_2020 });
});
