// The Travel Rule provider contract, run against every provider adapter (provider_a, provider_b, provider_e) through
// the shared adapter surface, and against the registry for the providers that cannot send (provider_c, provider_d).
// A new provider passes this before it is called done: capability refusal with a reason; discovery that never finds
// a VASP in an answer it could not read (a refusal or no answer is asked again; a redirect is never followed and is,
// for every provider, a transport failure like no answer: TRANSPORT_ERROR, asked again; garbage is asked again or fails);
// refusals as the provider's codes with the provider's body kept nowhere; a submission to a provider that refused
// never claims the transfer was taken. Each provider's happy path runs against its sandbox peer in its own tests.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import { providerA } from "../../src/adapters/providers/provider_a/adapter.ts";
import { providerB } from "../../src/adapters/providers/provider_b/adapter.ts";
import { randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { providerE } from "../../src/adapters/providers/provider_e/adapter.ts";
import { publicKeyOf } from "../../src/adapters/providers/provider_e/crypto.ts";
import { SettingsRegistry } from "../../src/adapters/providers/index.ts";
import type { TransferCandidate } from "../../src/adapters/providers/registry.ts";
import type { AdapterContext, OutgoingTransfer, ProviderAdapter } from "../../src/adapters/providers/types.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ProviderSettings } from "../../src/adapters/storage/repos/provider-settings.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { person } from "../support/persons.ts";
import { tempDir } from "../support/tmp.ts";
import { settingsWriter } from "../support/settings.ts";
import { AuditLog } from "../../src/adapters/storage/repos/audit.ts";
import { makeTestCa } from "../../src/sandbox/provider_d/ca.ts";

type Mode = "refuse" | "busy" | "redirect" | "garbage";
let server: ReturnType<typeof Bun.serve>;
let base = "";
let mode: Mode = "refuse";
const MARKER = "Jane-Personal-Data-Marker";

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      switch (mode) {
        case "refuse":
          return Response.json({ error: MARKER, message: MARKER }, { status: 400 });
        case "busy":
          return Response.json({ error: MARKER }, { status: 503 });
        case "redirect":
          return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:9/elsewhere" } });
        case "garbage":
          return new Response(`<html>${MARKER}</html>`, { headers: { "content-type": "application/json" } });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const outbound = () => providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });
const ctx = (credentials: Record<string, string>): AdapterContext => ({ credentials, fetch: outbound() as unknown as typeof fetch, now: Date.now() });

const CANDIDATE: TransferCandidate = { assetId: "ethereum:eth", asset: "ETH", network: "ethereum", amount: "1.5", beneficiaryPersonCount: 1, hasOriginatorAddress: true };
const TRANSFER: OutgoingTransfer = {
  id: "trf_contract_0001",
  companyId: "cmp_contract",
  environment: "test",
  asset: "ETH",
  assetId: "ethereum:eth",
  network: "ethereum",
  amount: "1.5",
  originatorAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  beneficiaryAddress: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  originatorPersons: [person("Keller", "Ruth")],
  beneficiaryPersons: [person("Jansen", "Pieter")],
  usdValue: "4500",
  isExceedingThreshold: true,
  expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
};

interface Provider {
  name: string;
  adapter: () => ProviderAdapter;
  credentials: () => Record<string, string>;
}

const E_KEY = "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a";
const BRIDGE_KEY = "8f6b3c1a0a7e5f2d4c9b8a7f6e5d4c3b2a19081726354453627180f9e8d7c6b5";

const PROVIDERS: Provider[] = [
  {
    name: "provider_a",
    adapter: () => providerA({ authUrl: base, apiOrigins: [base], originatorIdentity: async () => [person("Keller", "Ruth")] }),
    credentials: () => ({ apiUrl: base, clientId: "cid", clientSecret: "csecret", vaspDid: "did:web:caravan.example", webhookSecret: "whsec_" + btoa("a webhook signing secret of 32 b") }),
  },
  {
    name: "provider_b",
    adapter: () => providerB,
    credentials: () => ({ apiUrl: base, vaspEntityId: "CARAVAN-1", privateKey: randomSeedBase64(), legalName: "Caravan Test VASP", country: "NL" }),
  },
  {
    name: "provider_e",
    adapter: () =>
      providerE({
        baseUrl: { test: base, live: base },
        lookups: { originatorIdentity: async () => [person("Keller", "Ruth")], companyVasp: async () => ({ legalName: "Caravan Test VASP", country: "NL", lei: null }), providerId: async () => "prv_contract" },
      }),
    credentials: () => ({ apiKey: "contract-key", vaspCode: "CARAVANTEST01", privateKey: E_KEY, bridgePublicKey: publicKeyOf(BRIDGE_KEY), callbackBaseUrl: base, discoveryVaspCodes: "*" }),
  },
];

for (const p of PROVIDERS) {
  describe(`${p.name} meets the provider contract`, () => {
    test("capability: no beneficiary person → refused with a reason; a complete transfer → carried", () => {
      const a = p.adapter();
      const refused = a.canCarry({ ...CANDIDATE, beneficiaryPersonCount: 0 });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.reason.length).toBeGreaterThan(0);
      expect(a.canCarry(CANDIDATE)).toEqual({ ok: true });
    });

    test("discovery: a provider answering 503 → asked again later, nothing found", async () => {
      mode = "busy";
      const d = await p.adapter().discover!(TRANSFER, ctx(p.credentials()));
      expect(d.kind).toBe("retry");
      expect(JSON.stringify(d)).not.toContain(MARKER);
    });

    test("discovery: a redirect is not followed; like no answer it is TRANSPORT_ERROR, asked again later, nothing found", async () => {
      mode = "redirect";
      const d = await p.adapter().discover!(TRANSFER, ctx(p.credentials()));
      expect(d.kind).toBe("retry");
      expect(JSON.stringify(d)).toContain("TRANSPORT_ERROR");
    });

    test("connection test: a redirect is not followed → failed with TRANSPORT_ERROR", async () => {
      mode = "redirect";
      const r = await p.adapter().testConnection!("test", ctx(p.credentials()));
      expect(r.success).toBe(false);
      expect(r.error).toContain("TRANSPORT_ERROR");
    });

    test("discovery: nobody listening → asked again later", async () => {
      const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
      const url = `http://127.0.0.1:${closed.port}`;
      void closed.stop(true);
      const c = { ...p.credentials(), apiUrl: url, callbackBaseUrl: url };
      const a = p.name === "provider_a" ? providerA({ authUrl: url, apiOrigins: [url], originatorIdentity: async () => null }) : p.name === "provider_e" ? providerE({ baseUrl: { test: url, live: url }, lookups: { originatorIdentity: async () => null, companyVasp: async () => null, providerId: async () => null } }) : p.adapter();
      expect((await a.discover!(TRANSFER, ctx(c))).kind).toBe("retry");
    });

    test("discovery: an answer that is not JSON → never a VASP found, its text kept nowhere", async () => {
      mode = "garbage";
      const d = await p.adapter().discover!(TRANSFER, ctx(p.credentials()));
      expect(["retry", "fatal"]).toContain(d.kind);
      expect(JSON.stringify(d)).not.toContain(MARKER);
    });

    test("connection test: a refusal → failed with a code, the provider's body kept nowhere", async () => {
      mode = "refuse";
      const r = await p.adapter().testConnection!("test", ctx(p.credentials()));
      expect(r.success).toBe(false);
      expect(r.error).toBeTruthy();
      expect(JSON.stringify(r)).not.toContain(MARKER);
    });

    for (const m of ["refuse", "busy", "garbage", "redirect"] as const) {
      const what = { refuse: "answers 400", busy: "answers 503", garbage: "answers garbage", redirect: "redirects (TRANSPORT_ERROR)" }[m];
      test(`submission: a provider that ${what} never took the transfer`, async () => {
        mode = m;
        const s = await p.adapter().submit!(TRANSFER, { vaspId: "PEERVASP01", vaspName: null }, ctx(p.credentials()));
        expect(["not_taken", "unknown"]).toContain(s.kind);
        expect(JSON.stringify(s)).not.toContain(MARKER);
        if (m === "redirect") expect(JSON.stringify(s)).toContain("TRANSPORT_ERROR");
      });
    }
  });
}

/** Valid provider_d settings: a certificate and key from the sandbox peer's own test CA (openssl). */
function providerDCredentials(): Record<string, string> {
  const ca = makeTestCa("Contract Test CA");
  const ours = ca.issue("caravan.test");
  ca.dispose();
  return { baseUrl: "https://d.example", legalName: "Contract B.V.", lei: "5493001KJTIIGC8Y1R12", tlsCertificate: ours.certificate, tlsPrivateKey: ours.privateKey, clientCaCertificates: ca.certificate };
}

describe("providers that cannot send (provider_c, provider_d) meet the capability contract", () => {
  let storage: Storage;
  let settings: ProviderSettings;
  beforeAll(async () => {
    storage = await openStorage(join(tempDir(), "contract.db"));
    settings = new ProviderSettings(storage, new Sealer(crypto.getRandomValues(new Uint8Array(32))));
  });
  afterAll(() => storage.close());

  test("enabled with credentials, still refused with a reason: no adapter carries their transfers", async () => {
    const by = { type: "system" as const };
    // The certificates first, then the clock: openssl dates a certificate from the second it is issued, so a time
    // read before issuing can fall before it ("not yet valid").
    const dCredentials = providerDCredentials();
    const now = Date.now();
    const writer = settingsWriter(storage, { providerSettings: settings, audit: new AuditLog(storage) });
    const saved = [
      await writer.save("cmp_contract", "test", "provider_c", { credentials: { apiUrl: "https://node.example", apiToken: "t", trustAnchorAddress: "0x" + "1".repeat(40), trustAnchorPrivateKey: "c".repeat(63) + "9", webhookSecret: "s" }, notes: undefined }, by, now),
      await writer.save("cmp_contract", "test", "provider_d", { credentials: dCredentials, notes: undefined }, by, now),
    ];
    for (const s of saved) expect(s.ok).toBe(true);
    for (const name of ["provider_c", "provider_d"] as const) expect((await writer.setEnabled("cmp_contract", "test", name, true, by, now)).ok).toBe(true);
    const registry = new SettingsRegistry(settings, { provider_a: PROVIDERS[0].adapter(), provider_b: providerB, provider_e: PROVIDERS[2].adapter() }, outbound());
    const verdicts = await registry.capabilities("cmp_contract", "test", CANDIDATE);
    for (const name of ["provider_c", "provider_d"]) {
      const v = verdicts.find((x) => x.provider === name)!;
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.reason).toBe(`${name} cannot send transfers yet`);
    }
  });
});
