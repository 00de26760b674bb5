// A provider_d (TRP) suite for end-to-end tests: the sandbox TRP peer, a real server, provider_d saved and enabled
// with a certificate issued by the peer's CA (so each side accepts the other), the peer known as a counterparty, a
// verified customer with a verified wallet, and small helpers.
import { afterAll, beforeAll, expect } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { startServer, type ChildServer } from "./server.ts";
import { runCliInProcess } from "./cli.ts";
import { apiClient } from "./api.ts";
import { tempDir } from "./tmp.ts";
import { startTrpPeer, type TrpPeer, type TrpPeerOptions } from "../../src/sandbox/provider_d/index.ts";
import type { Issued } from "../../src/sandbox/provider_d/ca.ts";
import { JANE, RICHARD } from "./persons.ts";
import { janeToRichard, ORIGIN_ADDR } from "./transfers.ts";

export { ORIGIN_ADDR };
export const PEER_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
/** The peer's inquiry at one of our Travel Addresses: Richard (at PEER_ADDR) sends 0.25 ETH to Jane. */
export const INCOMING_INQUIRY = { asset: { slip0044: 60 }, amount: 0.25, IVMS101: { originator: { originatorPersons: [RICHARD], accountNumber: [PEER_ADDR] }, beneficiary: { beneficiaryPersons: [JANE] } } };

export interface DSuite {
  S: ChildServer;
  peer: TrpPeer;
  ours: Issued;
  trpUrl: string;
  db: string;
  call: ReturnType<typeof apiClient>["call"];
  owner: string;
  live: string;
  memberEmail: string;
  providerId: string;
  customerId: string;
  walletId: string;
  credentials: Record<string, string>;
  create(beneficiaryAddress: string, extra?: Record<string, unknown>): Promise<string>;
  until(id: string, done: (t: any) => boolean): Promise<any>;
  stop(): Promise<void>;
}

export async function startProviderDSuite(dir: string, o: { peer?: TrpPeerOptions; serverEnv?: Record<string, string>; runtime?: "bun" | "deno" } = {}): Promise<DSuite> {
  const db = join(dir, "pd.db");
  const peer = await startTrpPeer({ addresses: { "acct-1": PEER_ADDR }, ...(o.peer ?? {}) });
  // Our certificate, issued by the peer's CA: the peer accepts it as a client, and we accept the peer's CA.
  const ours = peer.ca.issue("caravan.localhost");
  let S!: ChildServer;
  const { cli, newKey, call } = apiClient(db, () => S.url);
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  // Caravan's own TRP listener (mutual TLS) with our certificate; its URL is our Travel Addresses' and callbacks' base.
  writeFileSync(join(dir, "trp-cert.pem"), ours.certificate);
  writeFileSync(join(dir, "trp-key.pem"), ours.privateKey);
  const env = { CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_TRP_TLS_PORT: "0", CARAVAN_TRP_TLS_CERT: join(dir, "trp-cert.pem"), CARAVAN_TRP_TLS_KEY: join(dir, "trp-key.pem"), ...(o.serverEnv ?? {}) };
  S = await startServer(env, o.runtime === "deno" ? { runtime: "deno", timeoutMs: 60_000 } : {});
  const trpUrl = /caravan TRP listening on (https:\/\/\S+)/.exec(await S.untilOutput("caravan TRP listening on"))?.[1];
  expect(trpUrl).toBeDefined();
  // The peer accepts our certificate (its own CA issued it) and calls our listener.
  const credentials = {
    baseUrl: trpUrl!,
    legalName: "Caravan Test VASP B.V.",
    lei: "5493001KJTIIGC8Y1R12",
    tlsCertificate: ours.certificate,
    tlsPrivateKey: ours.privateKey,
    clientCaCertificates: peer.ca.certificate,
    counterparties: JSON.stringify([{ name: "Sandbox TRP Peer", lei: "506700T7Z685VUOZL877", endpoint: peer.url, certificate: peer.identity.certificate }]),
  };
  for (const key of [k.key, live]) expect([200, 201]).toContain((await call("/api/v2/providers/provider_d", { method: "PUT", key, json: { credentials } })).status);
  expect((await call("/api/v2/providers/provider_d", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const got = await call("/api/v2/providers/provider_d", { key: k.key });
  const providerId = /\/provider_d\/test\/([^/?]+)/.exec(got.body.data.callbackPaths[0].path)![1];
  const c = await call("/api/v2/customers", { method: "POST", key: k.key, json: { name: "Jane Doe" } });
  const customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${customerId}/travel-rule-identity`, { method: "PUT", key: k.key, json: { status: "verified", persons: [JANE] } })).status).toBe(200);
  const w = await call("/api/v2/wallets", { method: "POST", key: k.key, json: { customerId, network: "ethereum", address: ORIGIN_ADDR } });
  expect(w.status).toBe(201);
  await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", k.memberEmail);
  const suite: DSuite = {
    get S() {
      return S;
    },
    peer,
    ours,
    trpUrl: trpUrl!,
    db,
    call,
    owner: k.key,
    live,
    memberEmail: k.memberEmail,
    providerId,
    customerId,
    walletId: w.body.data.id,
    credentials,
    async create(beneficiaryAddress, extra = {}) {
      const r = await call("/api/v2/transfers", {
        method: "POST",
        key: k.key,
        headers: { "Idempotency-Key": crypto.randomUUID() },
        json: janeToRichard(customerId, beneficiaryAddress, { amount: "1.5", ...extra }),
      });
      expect(r.status, r.text).toBe(202);
      return r.body.data.id as string;
    },
    async until(id, done) {
      // Bounded below the tests' 60 s, so a stuck transfer fails with its state and the server's log tail.
      const deadline = Date.now() + 45_000;
      let last: any = null;
      while (Date.now() < deadline) {
        const r = await call(`/api/v2/transfers/${id}`, { key: k.key });
        last = r.body.data;
        if (r.status === 200 && done(last)) return last;
        await Bun.sleep(100);
      }
      throw new Error(`transfer ${id} stuck in ${last?.state}: ${JSON.stringify(last?.cascade)}; log tail:\n${S.output().slice(-4000)}`);
    },
    async stop() {
      await S?.stop();
      await peer.close();
    },
  };
  return suite;
}

/**
 * The suite of one test file: started in a fresh directory before the file's tests, stopped after them. The answer
 * stands for the suite from its start on (using it before then throws).
 */
export function providerDSuiteForFile(o: Parameters<typeof startProviderDSuite>[1] = {}): DSuite {
  const dir = tempDir(); // here, not in the hook: its removal is registered for the file's end
  let suite: DSuite | undefined;
  beforeAll(async () => {
    suite = await startProviderDSuite(dir, o);
  });
  afterAll(async () => {
    await suite?.stop();
  });
  return new Proxy({} as DSuite, {
    get(_, name) {
      if (!suite) throw new Error("the provider_d suite is used before it started");
      return Reflect.get(suite, name);
    },
  });
}

/** The Travel Address of the suite's verified wallet, as the API gives it. */
export async function travelAddressOf(d: DSuite): Promise<string> {
  const r = await d.call(`/api/v2/wallets/${d.walletId}/travel-address`, { key: d.owner });
  expect(r.status, r.text).toBe(200);
  return r.body.data.travelAddress as string;
}
