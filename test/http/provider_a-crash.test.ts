// provider_a crash: SIGKILL between reading the provider and committing leaves the event unprocessed, so its
// redelivery completes it (Part 3 "provider_a callback": recorded as processed only after success).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient } from "../support/api.ts";
import { startProviderAPeer, type ProviderAPeer } from "../../src/sandbox/provider_a/index.ts";
import type { CountryCode, Person } from "../../src/domain/ivms101/index.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa-crash.db");
let S: ChildServer;
let peer: ProviderAPeer;
const { newKey, call } = apiClient(db, () => S.url);
const CARAVAN = "did:web:caravan.example";
const SECRET = "whsec_" + btoa("crash test signing secret 32 b!!");
const BENE = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const person = (family: string, given: string): Person => ({
  naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" as CountryCode },
});
const env = () => ({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url });
let owner: string;
let providerId: string;

function register() {
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "c", clientSecret: "s", webhookUrl: `${S.url}/api/system/trp/provider_a/test/${providerId}`, webhookSecret: SECRET });
}

beforeAll(async () => {
  peer = await startProviderAPeer({ vasps: [{ did: "did:web:bene.example", name: "Bene", behaviour: "authorize", customers: { r: [person("Roe", "Richard")] }, wallets: [{ address: BENE, customer: "r" }] }] });
  expect((await runCli(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = (await newKey("--env", "test", "--role", "owner")).key;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  S = await startServer(env());
  const credentials = { apiUrl: peer.url, clientId: "c", clientSecret: "s", vaspDid: CARAVAN, webhookSecret: SECRET };
  for (const key of [owner, live]) expect((await call("/api/v2/providers/provider_a", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await call("/api/v2/providers/provider_a", { method: "PATCH", key: live, json: { enabled: true } })).status).toBe(200);
  providerId = String((await call("/api/v2/providers/provider_a", { key: owner })).body.data.callbackPaths[0].path).split("/").at(-1)!;
  register();
});

afterAll(async () => {
  await S?.stop();
  await peer?.stop();
});

test("SIGKILL while the event is processed (provider read, authorization on the wire): unrecorded; the redelivery after restart completes it", async () => {
  const c = await call("/api/v2/customers", { method: "POST", key: owner, json: { name: "Jane Doe" } });
  const jane = c.body.data.id;
  await call(`/api/v2/customers/${jane}/travel-rule-identity`, { method: "PUT", key: owner, json: { status: "verified", persons: [person("Doe", "Jane")] } });
  // The authorization hangs: the callback has read the provider's transfer and the actor has not committed.
  peer.setFault("authorize", { kind: "hang" });
  peer.webhooks.retries = 0;
  const r = await call("/api/v2/transfers", {
    method: "POST",
    key: owner,
    headers: { "Idempotency-Key": crypto.randomUUID() },
    json: { asset: "ETH", amount: "1", network: "ethereum", originatorCustomerId: jane, beneficiaryAddress: BENE, originator: { originatorPersons: [person("Doe", "Jane")] }, beneficiary: { beneficiaryPersons: [person("Roe", "Richard")] } },
  });
  expect(r.status).toBe(202);
  const id = r.body.data.id;
  for (let i = 0; i < 300 && !peer.requests.some((q) => q.route === "authorize"); i++) await Bun.sleep(50);
  expect(peer.requests.some((q) => q.route === "authorize")).toBe(true);
  const message = peer.webhooks.sent.at(-1)!;
  await S.stop("SIGKILL");

  const file = new Database(db, { readonly: true });
  const recorded = () => (file.query("SELECT count(*) AS n FROM provider_a_messages WHERE message_id = ?").get(message.id) as { n: number }).n;
  expect(recorded()).toBe(0);
  const state = (file.query("SELECT state FROM transfers WHERE id = ?").get(id) as { state: string }).state;
  expect(state).toBe("exchanging");

  peer.clearFaults();
  S = await startServer(env());
  register();
  message.endpoint.url = `${S.url}/api/system/trp/provider_a/test/${providerId}`;
  expect(await peer.webhooks.redeliver(message.id)).toBe(200);
  expect(recorded()).toBe(1);
  let t: { state: string } = { state: "" };
  for (let i = 0; i < 100; i++) {
    t = (await call(`/api/v2/transfers/${id}`, { key: owner })).body.data;
    if (t.state === "accepted") break;
    await Bun.sleep(100);
  }
  expect(t.state).toBe("accepted");
  file.close();
});
