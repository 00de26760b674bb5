// A provider_e suite for end-to-end tests: a sandbox bridge, a real server configured for it (test environment, the
// provider enabled with a live key), a verified customer with a verified wallet, and small helpers.
import { expect } from "bun:test";
import { join } from "node:path";
import { withDb } from "./db.ts";
import { startServer, type ChildServer } from "./server.ts";
import { runCliInProcess } from "./cli.ts";
import { apiClient } from "./api.ts";
import { startProviderEBridge, type BridgeOptions, type ProviderEBridge } from "../../src/sandbox/provider_e/index.ts";
import { publicKeyOf, randomPrivateKey } from "../../src/adapters/providers/provider_e/crypto.ts";
import type { Person } from "../../src/domain/ivms101/index.ts";
import { JANE } from "./persons.ts";
import { janeToRichard, ORIGIN_ADDR } from "./transfers.ts";
import { decodeEventData } from "../../src/adapters/storage/event-data.ts";

export const OUR_CODE = "CARAVANVASP";
export { ORIGIN_ADDR };

export interface Suite {
  S: ChildServer;
  bridge: ProviderEBridge;
  db: string;
  call: ReturnType<typeof apiClient>["call"];
  cli: ReturnType<typeof apiClient>["cli"];
  newKey: ReturnType<typeof apiClient>["newKey"];
  owner: string;
  ownerEmail: string;
  live: string;
  providerId: string;
  ourKey: string;
  customerId: string;
  env: Record<string, string>;
  saveSettings(extra?: Record<string, string>, key?: string): Promise<void>;
  create(addr: string, extra?: Record<string, unknown>): Promise<string>;
  until(id: string, done: (t: any) => boolean, tries?: number): Promise<any>;
  /** Events recorded for an entity, read from the database. */
  events(entityId: string): { type: string; data: Record<string, any> }[];
  restart(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
  stop(): Promise<void>;
}

/** `dir`: a directory from `tempDir()` called at the test file's top level (its clean-up runs after the file). */
export async function startProviderESuite(dir: string, o: { bridge?: BridgeOptions; identity?: Person[]; allow?: string; serverEnv?: Record<string, string> } = {}): Promise<Suite> {
  const db = join(dir, "pe.db");
  const bridge = await startProviderEBridge(o.bridge ?? {});
  let S!: ChildServer;
  const { cli, newKey, call } = apiClient(db, () => S.url);
  const ourKey = randomPrivateKey();
  const env = { CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_E_TEST_URL: bridge.baseUrl, ...(o.serverEnv ?? {}) };
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  const companies = JSON.parse((await cli("companies", "list", "--json")).split("\n").at(-1)!);
  const slug = (Array.isArray(companies) ? companies : companies.data ?? companies.companies)[0].slug;
  await cli("companies", "profile", "--slug", slug, "--legal-name", "Caravan Test VASP B.V.", "--country", "NL");
  S = await startServer(env);
  const suite: Suite = {
    get S() {
      return S;
    },
    bridge,
    db,
    call,
    cli,
    newKey,
    owner: k.key,
    ownerEmail: k.memberEmail,
    live,
    providerId: "",
    ourKey,
    customerId: "",
    env,
    async saveSettings(extra = {}, key = k.key) {
      const credentials = { apiKey: "sygna-test-key", vaspCode: OUR_CODE, privateKey: ourKey, bridgePublicKey: bridge.bridgePublicKey, callbackBaseUrl: "https://caravan.example", discoveryVaspCodes: o.allow ?? "*", ...extra };
      const r = await call("/api/v2/providers/provider_e", { method: "PUT", key, json: { credentials } });
      expect([200, 201]).toContain(r.status);
    },
    async create(addr, extra = {}) {
      const r = await call("/api/v2/transfers", {
        method: "POST",
        key: k.key,
        headers: { "Idempotency-Key": crypto.randomUUID() },
        json: janeToRichard(suite.customerId, addr, { preferredProtocol: "provider_e", ...extra }),
      });
      expect(r.status).toBe(202);
      return r.body.data.id as string;
    },
    async until(id, done, tries = 450) {
      // Bounded in time below the tests' 60 s, so a stuck transfer fails with its state and the server's log tail
      // (a dead server too) instead of a bare test timeout.
      const deadline = Date.now() + Math.min(tries * 100, 45_000);
      let last: any = null;
      while (Date.now() < deadline) {
        let r: Awaited<ReturnType<typeof call>>;
        try {
          r = await call(`/api/v2/transfers/${id}`, { key: k.key });
        } catch (e) {
          throw new Error(`transfer ${id}: the server does not answer (${(e as Error).message}); exit ${S.proc.exitCode ?? "none"}; log tail:\n${S.output().slice(-4000)}`);
        }
        last = r.body.data;
        if (r.status === 200 && done(last)) return last;
        await Bun.sleep(100);
      }
      throw new Error(`transfer ${id} stuck in ${last?.state}: ${JSON.stringify(last?.cascade)}; log tail:\n${S.output().slice(-4000)}`);
    },
    events(entityId) {
      return withDb(db, (d) =>
        (d.query("SELECT type, data FROM events WHERE entity_id = ? ORDER BY seq").all(entityId) as { type: string; data: string | Uint8Array }[]).map((e) => ({ type: e.type, data: JSON.parse(decodeEventData(e.data)) })),
      );
    },
    async restart(signal = "SIGTERM") {
      await S.stop(signal);
      S = await startServer(env);
      bridge.registerCaravan({ vaspCode: OUR_CODE, publicKey: publicKeyOf(ourKey), serverUrl: S.url, environment: "test", providerId: suite.providerId });
    },
    async stop() {
      await S?.stop();
      await bridge.stop();
    },
  };
  await suite.saveSettings();
  // Enabling is a company-wide switch, changed with a live key (Part 2).
  await suite.saveSettings({}, live);
  expect((await call("/api/v2/providers/provider_e", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  const got = await call("/api/v2/providers", { key: k.key });
  const paths = got.body.data.find((p: { name: string }) => p.name === "provider_e").callbackPaths as { path: string }[];
  suite.providerId = /\/provider_e\/test\/([^/]+)\//.exec(paths[0].path)![1];
  bridge.registerCaravan({ vaspCode: OUR_CODE, publicKey: publicKeyOf(ourKey), serverUrl: S.url, environment: "test", providerId: suite.providerId });
  const c = await call("/api/v2/customers", { method: "POST", key: k.key, json: { name: "Jane Doe" } });
  suite.customerId = c.body.data.id;
  expect((await call(`/api/v2/customers/${suite.customerId}/travel-rule-identity`, { method: "PUT", key: k.key, json: { status: "verified", persons: o.identity ?? [JANE] } })).status).toBe(200);
  const w = await call("/api/v2/wallets", { method: "POST", key: k.key, json: { customerId: suite.customerId, network: "ethereum", address: ORIGIN_ADDR } });
  expect(w.status).toBe(201);
  await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", k.memberEmail);
  return suite;
}
