// provider_a's outbound client against the sandbox network over real loopback HTTP (Part 3 "provider_a callback" →
// Outbound, Limits "provider_a request timeout 15 seconds; only a 401 retried once"): the timeout is proved with a
// short bound injected into the same SSRF-guarded client the service uses (never waiting 15 s), and the production
// value is asserted where it is defined.
import { test, expect, beforeAll, afterAll, beforeEach, describe, setDefaultTimeout } from "bun:test";
import { PROVIDER_TIMEOUT_MS, providerFetch } from "../../src/adapters/providers/outbound.ts";
import { ProviderAClient, clearTokenCache, type ProviderAFetch } from "../../src/adapters/providers/provider_a/client.ts";
import { providerA } from "../../src/adapters/providers/provider_a/adapter.ts";
import { checkSettings, type ProviderASettings } from "../../src/domain/provider_a/settings.ts";
import { startProviderAPeer, type ProviderAPeer } from "../../src/sandbox/provider_a/index.ts";
import { listen } from "../../src/adapters/server/index.ts";

// Servers on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const CARAVAN = "did:web:caravan.example";
const SECRET = "whsec_" + btoa("a webhook signing secret of 32 b");
const ENV = { CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" };
let peer: ProviderAPeer;
let settings: ProviderASettings;
/** A loopback server that answers the entity lookup after a pause (a slow but answering provider). */
let slow: { url: string; stop(): Promise<void> };

const client = (timeoutMs?: number, s = settings) => new ProviderAClient(s, peer.url, providerFetch(ENV, timeoutMs) as unknown as ProviderAFetch, Date.now);
const routed = (route: string) => peer.requests.filter((q) => q.route === route);

beforeAll(async () => {
  peer = await startProviderAPeer({ caravan: { did: CARAVAN, name: "Caravan", clientId: "cid", clientSecret: "csecret", webhookUrl: "http://127.0.0.1:9/unused", webhookSecret: SECRET } });
  const c = checkSettings({ apiUrl: peer.url, clientId: "cid", clientSecret: "csecret", vaspDid: CARAVAN, webhookSecret: SECRET }, [peer.url]);
  if (!c.ok) throw new Error(c.problem);
  settings = c.settings;
  const server = await listen(
    async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/oauth/token") return Response.json({ access_token: "slow-token", expires_in: 3600 });
      await Bun.sleep(1_000);
      return Response.json({ did: CARAVAN, name: "Caravan" });
    },
    { hostname: "127.0.0.1", port: 0 },
  );
  slow = { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
});

afterAll(async () => {
  await peer?.stop();
  await slow?.stop();
});

beforeEach(() => {
  clearTokenCache();
  peer.clearFaults();
});

describe("the 15 s timeout", () => {
  test("the production value is 15 000 ms, and the service's client uses it by default", () => {
    expect(PROVIDER_TIMEOUT_MS).toBe(15_000);
    // providerFetch's default bound is that constant (services.ts wires `providerFetch(env)` without an override).
    expect(providerFetch.length).toBe(1);
    expect(String(providerFetch)).toContain("PROVIDER_TIMEOUT_MS");
  });

  test("a provider that never answers: TRANSPORT_ERROR once the bound passes, and the call is not repeated", async () => {
    const healthy = await client(200).token();
    expect(healthy.ok).toBe(true);
    peer.setFault("get", { kind: "hang" }, 1);
    const before = routed("get").length;
    const r = await client(200).getTx("tx_hanging");
    expect(r).toEqual({ ok: false, code: "TRANSPORT_ERROR" });
    // Only a 401 is retried: the timed-out call was sent exactly once.
    expect(routed("get").length).toBe(before + 1);
  });

  test("a slow answer within the bound is taken (the default bound is not a short one)", async () => {
    const s = checkSettings({ ...settings, apiUrl: slow.url }, [slow.url]);
    if (!s.ok) throw new Error(s.problem);
    const c = new ProviderAClient(s.settings, slow.url, providerFetch(ENV) as unknown as ProviderAFetch, Date.now);
    const r = await c.lookupEntity(CARAVAN);
    expect(r.ok).toBe(true);
    // The same slow answer with a short injected bound is a transport error.
    const short = new ProviderAClient(s.settings, slow.url, providerFetch(ENV, 200) as unknown as ProviderAFetch, Date.now);
    clearTokenCache();
    expect(await short.lookupEntity(CARAVAN)).toEqual({ ok: false, code: "TRANSPORT_ERROR" });
  });
});

describe("only a 401 is retried, once, with a new token", () => {
  test("a 5xx, a 429 and a 4xx are each sent once", async () => {
    for (const status of [500, 503, 429, 404]) {
      peer.setFault("get", { kind: "status", status }, 1);
      const before = routed("get").length;
      const r = await client().getTx("tx_x");
      expect(r).toEqual({ ok: false, code: `HTTP_${status}`, status });
      expect(routed("get").length).toBe(before + 1);
    }
  });

  test("a 401 answered twice: one new token, two calls, then HTTP_401", async () => {
    const c = client();
    expect((await c.token()).ok).toBe(true);
    const tokens = peer.tokensIssued();
    peer.setFault("get", { kind: "status", status: 401 }, 2);
    const before = routed("get").length;
    expect(await c.getTx("tx_x")).toEqual({ ok: false, code: "HTTP_401", status: 401 });
    expect(routed("get").length).toBe(before + 2);
    expect(peer.tokensIssued()).toBe(tokens + 1);
  });

  test("the token is cached per connection: a second call takes no new token; another secret is another connection", async () => {
    const c = client();
    await c.lookupEntity(CARAVAN);
    const tokens = peer.tokensIssued();
    expect((await c.lookupEntity(CARAVAN)).ok).toBe(true);
    expect(peer.tokensIssued()).toBe(tokens);
    const other = client(undefined, { ...settings, clientSecret: "another" });
    // An unknown client is refused by the auth origin: nothing cached for it, the failure is the provider's code.
    expect(await other.lookupEntity(CARAVAN)).toEqual({ ok: false, code: "HTTP_401", status: 401 });
  });

  test("the token request carries the client credentials grant with the apiUrl as audience", async () => {
    await client().token(true);
    const t = routed("token").at(-1)!;
    expect(t.body).toEqual({ client_id: "cid", client_secret: "csecret", grant_type: "client_credentials", audience: peer.url });
  });
});

describe("connection test texts", () => {
  const adapter = providerA({ authUrl: "", apiOrigins: [], originatorIdentity: async () => null });
  const test_ = (credentials: Record<string, string>, origins: string[], authUrl: string, timeoutMs?: number) =>
    providerA({ authUrl, apiOrigins: origins, originatorIdentity: async () => null }).testConnection!("test", { credentials, fetch: providerFetch(ENV, timeoutMs) as unknown as typeof fetch, now: Date.now() });

  test("an unreachable provider (the bound passed): provider_a request failed (TRANSPORT_ERROR)", async () => {
    expect(adapter.name).toBe("provider_a");
    peer.setFault("entity", { kind: "hang" }, 1);
    const r = await test_({ apiUrl: peer.url, clientId: "cid", clientSecret: "csecret", vaspDid: CARAVAN, webhookSecret: SECRET }, [peer.url], peer.url, 200);
    expect(r).toMatchObject({ success: false, error: "provider_a request failed (TRANSPORT_ERROR)" });
  });

  test("an apiUrl outside CARAVAN_PROVIDER_A_API_ORIGINS: INVALID_CONFIGURATION, nothing sent", async () => {
    const before = peer.requests.length;
    const r = await test_({ apiUrl: peer.url, clientId: "cid", clientSecret: "csecret", vaspDid: CARAVAN, webhookSecret: SECRET }, ["https://api.notabene.id"], peer.url);
    expect(r).toMatchObject({ success: false, error: "INVALID_CONFIGURATION" });
    expect(peer.requests.length).toBe(before);
  });
});

describe("discovery answers as the routing cascade reads them (the adapter over real HTTP)", () => {
  const VASP = "did:web:bene.example";
  const ADDRESS = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
  const credentials = () => ({ apiUrl: peer.url, clientId: "cid", clientSecret: "csecret", vaspDid: CARAVAN, webhookSecret: SECRET });
  const transfer = (o: Partial<{ network: string; beneficiaryAddress: string }> = {}) => ({
    id: "trf_1", companyId: "cmp_1", environment: "test" as const, asset: "ETH", assetId: "eip155:1/slip44:60", network: "ethereum", amount: "1",
    originatorAddress: null, beneficiaryAddress: ADDRESS, originatorPersons: [], beneficiaryPersons: [], usdValue: null, isExceedingThreshold: false, expiresAt: null, ...o,
  });
  const discover = (timeoutMs?: number, o: Parameters<typeof transfer>[0] = {}) =>
    providerA({ authUrl: peer.url, apiOrigins: [peer.url], originatorIdentity: async () => null }).discover!(transfer(o), { credentials: credentials(), fetch: providerFetch(ENV, timeoutMs) as unknown as typeof fetch, now: Date.now() });

  beforeAll(() => {
    peer.addVasp({ did: VASP, name: "Bene", behaviour: "silent", customers: {}, wallets: [{ address: ADDRESS, customer: "x" }] });
  });

  test("CONFIRMED by another VASP: found, asked as ETH-ETHEREUM for the address", async () => {
    expect(await discover()).toEqual({ kind: "found", vaspId: VASP, vaspName: "Bene" });
    const q = routed("discover").at(-1)!;
    expect(new URL(q.path, peer.url).searchParams.get("asset")).toBe("ETH-ETHEREUM");
    expect(new URL(q.path, peer.url).searchParams.get("address")).toBe(ADDRESS);
  });

  test("no answer (the bound passed), 429 and 5xx: asked again later (retry)", async () => {
    peer.setFault("discover", { kind: "hang" }, 1);
    expect((await discover(200)).kind).toBe("retry");
    for (const status of [429, 500, 502, 503]) {
      peer.setFault("discover", { kind: "status", status }, 1);
      expect(await discover()).toEqual({ kind: "retry", reason: `provider_a request failed (HTTP_${status})` });
    }
  });

  test("a refusal (4xx other than 429), a malformed answer, another asset, an unknown status: routing stops (fatal)", async () => {
    for (const status of [400, 403, 404, 409]) {
      peer.setFault("discover", { kind: "status", status }, 1);
      expect(await discover()).toEqual({ kind: "fatal", reason: `provider_a request failed (HTTP_${status})` });
    }
    const answers: [unknown, string][] = [
      [{ status: "CONFIRMED" }, "INVALID_RESPONSE"],
      [{ address: ADDRESS, asset: "USDC-ETHEREUM", status: "CONFIRMED", owner: { did: VASP, name: "b" }, custodian: null }, "DISCOVERY_MISMATCH"],
      [{ address: `${ADDRESS}:7`, asset: "ETH-ETHEREUM", status: "CONFIRMED", owner: { did: VASP, name: "b" }, custodian: null }, "DISCOVERY_MISMATCH"],
      [{ address: ADDRESS, asset: "ETH-ETHEREUM", status: "MAYBE", owner: { did: VASP, name: "b" }, custodian: null }, "INVALID_RESPONSE"],
      [{ address: ADDRESS, asset: "ETH-ETHEREUM", status: "CONFIRMED", owner: null, custodian: null }, "INVALID_RESPONSE"],
    ];
    for (const [body, code] of answers) {
      peer.setFault("discover", { kind: "answer", body }, 1);
      expect(await discover()).toEqual({ kind: "fatal", reason: `provider_a request failed (${code})` });
    }
  });

  test("unusable settings: asked again later, nothing sent", async () => {
    const before = peer.requests.length;
    const r = await providerA({ authUrl: peer.url, apiOrigins: [peer.url], originatorIdentity: async () => null }).discover!(transfer(), { credentials: { ...credentials(), webhookSecret: "not-whsec" }, fetch: providerFetch(ENV) as unknown as typeof fetch, now: Date.now() });
    expect(r.kind).toBe("retry");
    expect(peer.requests.length).toBe(before);
  });
});
