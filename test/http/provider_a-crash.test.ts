// provider_a crash: SIGKILL between reading the provider and committing leaves the event unprocessed, so its
// redelivery completes it (Part 3 "provider_a callback": recorded as processed only after success).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { CARAVAN, providerAHelpers } from "../support/provider_a.ts";
import { JANE, RICHARD } from "../support/persons.ts";
import { startProviderAPeer, type ProviderAPeer } from "../../src/sandbox/provider_a/index.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "pa-crash.db");
let S: ChildServer;
let peer: ProviderAPeer;
const { newKey, call, cli } = apiClient(db, () => S.url);
const SECRET = "whsec_" + btoa("crash test signing secret 32 b!!");
const BENE = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const env = () => ({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_PROVIDER_A_AUTH_URL: peer.url, CARAVAN_PROVIDER_A_API_ORIGINS: peer.url });
let owner: string;
let ownerEmail: string;
let providerId: string;
const { customer, createOutgoing, until } = providerAHelpers({ call, cli }, () => ({ owner, ownerEmail }));

function register() {
  peer.registerCaravan({ did: CARAVAN, name: "Caravan", clientId: "c", clientSecret: "s", webhookUrl: `${S.url}/api/system/trp/provider_a/test/${providerId}`, webhookSecret: SECRET });
}

beforeAll(async () => {
  peer = await startProviderAPeer({ vasps: [{ did: "did:web:bene.example", name: "Bene", behaviour: "authorize", customers: { r: [RICHARD] }, wallets: [{ address: BENE, customer: "r" }] }] });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
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
  const jane = await customer("Jane Doe", "verified", [JANE]);
  // The authorization hangs: the callback has read the provider's transfer and the actor has not committed.
  peer.setFault("authorize", { kind: "hang" });
  peer.webhooks.retries = 0;
  const id = await createOutgoing({ beneficiaryAddress: BENE, originatorCustomerId: jane, originatorPersons: [JANE], beneficiaryPersons: [RICHARD] });
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
  expect((await until(id, ["accepted"])).state).toBe("accepted");
  file.close();
});
