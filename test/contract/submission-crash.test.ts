// Crash-safe submission, the same suite for every provider that submits (provider_a, provider_b, provider_e): the
// attempt is reserved (committed as `submitting`) before the request leaves, so a server SIGKILLed while the provider
// holds the request unanswered comes back knowing the send is in doubt: the transfer is failed with the attempt
// `submission_unknown`, that provider keeps it (no other provider is tried), and neither the restart nor a retry sends
// it again (Part 3: "once reserved, no other provider is tried; a failure is submission_unknown and retry does not
// resend"). A real server process, a real SQLite file and each provider's sandbox peer over loopback HTTP.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient } from "../support/api.ts";
import { JANE, RICHARD } from "../support/persons.ts";
import { startProviderAPeer } from "../../src/sandbox/provider_a/index.ts";
import { startProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { startProviderEBridge } from "../../src/sandbox/provider_e/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { publicKeyOf, randomPrivateKey } from "../../src/adapters/providers/provider_e/crypto.ts";

// Servers started, killed and restarted on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const ORIGIN = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BENE = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";

/** One provider's sandbox peer, seen from the suite: how it is configured, how its submission route is held. */
interface Peer {
  /** Server environment pointing the provider at the peer. */
  env: Record<string, string>;
  credentials: Record<string, string>;
  /** Tells the peer where this server is (after each start). */
  register(serverUrl: string, providerId: string): void;
  /** The submission route takes the request and never answers (until released). */
  hold(): void;
  release(): void;
  /** Submission requests the peer has received. */
  sent(): number;
  stop(): Promise<void>;
}

interface Provider {
  name: "provider_a" | "provider_b" | "provider_e";
  start(): Promise<Peer>;
}

const PROVIDERS: Provider[] = [
  {
    name: "provider_a",
    async start() {
      const CARAVAN = "did:web:caravan.example";
      const secret = "whsec_" + btoa("submission crash signing secret!");
      const peer = await startProviderAPeer({ vasps: [{ did: "did:web:bene.example", name: "Bene", behaviour: "authorize", customers: { r: [RICHARD] }, wallets: [{ address: BENE, customer: "r" }] }] });
      return {
        env: { CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url },
        credentials: { apiUrl: peer.url, clientId: "c", clientSecret: "s", vaspDid: CARAVAN, webhookSecret: secret },
        register: (url, providerId) => peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "c", clientSecret: "s", webhookUrl: `${url}/api/system/trp/provider_a/test/${providerId}`, webhookSecret: secret }),
        hold: () => peer.setFault("create", { kind: "hang" }),
        release: () => peer.clearFaults(),
        sent: () => peer.requests.filter((q) => q.route === "create").length,
        stop: () => peer.stop(),
      };
    },
  },
  {
    name: "provider_b",
    async start() {
      const seed = randomSeedBase64();
      const peer = await startProviderBPeer({ vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { richard: [RICHARD] }, wallets: [{ address: BENE, customer: "richard" }] }] });
      return {
        env: {},
        credentials: { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" },
        register: (url) => void peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: url }),
        hold: () => peer.setFault("transfer", { kind: "hang" }),
        release: () => peer.clearFaults(),
        sent: () => peer.requests.filter((q) => q.route === "transfer").length,
        stop: () => peer.stop(),
      };
    },
  },
  {
    name: "provider_e",
    async start() {
      const PR = "/bridge/transaction/permission-request";
      const ourKey = randomPrivateKey();
      const bridge = await startProviderEBridge({ vasps: [{ code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE] }] });
      return {
        env: { CARAVAN_PROVIDER_E_TEST_URL: bridge.baseUrl },
        credentials: { apiKey: "sygna-test-key", vaspCode: "CARAVANVASP", privateKey: ourKey, bridgePublicKey: bridge.bridgePublicKey, callbackBaseUrl: "https://caravan.example", discoveryVaspCodes: "BENEFVASP" },
        register: (url, providerId) => bridge.registerCaravan({ vaspCode: "CARAVANVASP", publicKey: publicKeyOf(ourKey), serverUrl: url, environment: "test", providerId }),
        hold: () => bridge.setRouteFault(PR, { hang: true }),
        release: () => bridge.setRouteFault(PR, null),
        sent: () => bridge.requests.filter((q) => q.path === PR).length,
        stop: () => bridge.stop(),
      };
    },
  },
];

const root = tempDir();

for (const p of PROVIDERS) {
  describe(`${p.name}: crash-safe submission`, () => {
    const db = join(root, `${p.name}-submission-crash.db`);
    let S: ChildServer;
    let peer: Peer;
    let owner = "";
    let customerId = "";
    let providerId = "";
    const { call, cli, newKey } = apiClient(db, () => S.url);
    const env = () => ({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", ...peer.env });

    async function transfer(id: string, done: (t: any) => boolean): Promise<any> {
      let last: any = null;
      for (let i = 0; i < 450; i++) {
        const r = await call(`/api/v2/transfers/${id}`, { key: owner });
        last = r.body.data;
        if (r.status === 200 && done(last)) return last;
        await Bun.sleep(100);
      }
      throw new Error(`transfer ${id} stuck in ${last?.state}: ${JSON.stringify(last?.cascade)}\n${S.output().slice(-3000)}`);
    }

    async function create(): Promise<string> {
      const r = await call("/api/v2/transfers", {
        method: "POST",
        key: owner,
        headers: { "Idempotency-Key": crypto.randomUUID() },
        json: { asset: "ETH", amount: "1", network: "ethereum", originatorCustomerId: customerId, originatorAddress: ORIGIN, beneficiaryAddress: BENE, originator: { originatorPersons: [JANE] }, beneficiary: { beneficiaryPersons: [RICHARD] }, preferredProtocol: p.name },
      });
      expect(r.status).toBe(202);
      return r.body.data.id;
    }

    async function restart(signal: NodeJS.Signals) {
      await S.stop(signal);
      S = await startServer(env());
      peer.register(S.url, providerId);
    }

    beforeAll(async () => {
      peer = await p.start();
      expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
      const k = await newKey("--env", "test", "--role", "owner");
      owner = k.key;
      const live = (await newKey("--env", "live", "--role", "owner")).key;
      const companies = JSON.parse((await cli("companies", "list", "--json")).split("\n").at(-1)!);
      const slug = (Array.isArray(companies) ? companies : (companies.data ?? companies.companies))[0].slug;
      await cli("companies", "profile", "--slug", slug, "--legal-name", "Caravan Test VASP B.V.", "--country", "NL");
      S = await startServer(env());
      for (const key of [owner, live]) expect([200, 201]).toContain((await call(`/api/v2/providers/${p.name}`, { method: "PUT", key, json: { credentials: peer.credentials } })).status);
      expect((await call(`/api/v2/providers/${p.name}`, { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
      const saved = (await call(`/api/v2/providers/${p.name}`, { key: owner })).body.data;
      providerId = saved.id;
      peer.register(S.url, providerId);
      customerId = (await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } })).body.data.id;
      expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
      const w = await call("/api/v2/wallets", { method: "POST", key: owner, json: { customerId, network: "ethereum", address: ORIGIN } });
      expect(w.status).toBe(201);
      await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", k.memberEmail);
    });

    afterAll(async () => {
      await S?.stop();
      await peer?.stop();
    });

    test("reserved before it is sent; SIGKILL with the request unanswered → failed, submission_unknown, never sent again", async () => {
      peer.hold();
      const id = await create();
      for (let i = 0; i < 450 && peer.sent() === 0; i++) await Bun.sleep(100);
      expect(peer.sent()).toBe(1);
      await S.stop("SIGKILL");

      // The process died while the provider held the request: the file already says it was being sent.
      const file = new Database(db, { readonly: true });
      try {
        const row = file.query("SELECT state, attempts FROM transfers WHERE id = ?").get(id) as { state: string; attempts: string };
        expect(row.state).toBe("processing");
        expect(JSON.parse(row.attempts).at(-1)).toMatchObject({ provider: p.name, status: "submitting" });
      } finally {
        file.close();
      }

      peer.release();
      S = await startServer(env());
      peer.register(S.url, providerId);
      const t = await transfer(id, (x) => x.state === "failed");
      expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: p.name, status: "submission_unknown" });
      // No other provider was tried after the reservation, and this one only once.
      expect(t.cascade.attempts.filter((a: { status: string }) => a.status === "submitting" || a.status === "submission_unknown" || a.status === "sent")).toHaveLength(1);
      expect(t.cascade.provider).toBe(p.name);

      const retry = await call(`/api/v2/transfers/${id}`, { method: "PATCH", key: owner, json: { action: "retry", reason: "after the crash" } });
      expect(retry.status).toBe(400);
      expect(retry.body.code).toBe("INVALID_REQUEST");

      // A second restart replays nothing either; a later transfer is sent (the server works) and the first never is.
      await restart("SIGTERM");
      const next = await create();
      await transfer(next, (x) => x.state !== "queued" && x.state !== "processing");
      expect(peer.sent()).toBe(2);
      expect((await transfer(id, () => true)).state).toBe("failed");
    });
  });
}
