// `caravan demo`: the service plus sandbox peers (provider_b, provider_a and provider_e networks, screening vendors), demo
// customers and a stream of transfers, so a newcomer sees transfers move, get refused, get held and complete within a
// minute. Everything talks real HTTP on loopback.
import process from "node:process";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { startService, type RunningService } from "./services.ts";
import { Tenancy } from "./adapters/storage/repos/tenancy.ts";
import { startProviderBPeer, type ProviderBPeer } from "./sandbox/provider_b/index.ts";
import { startProviderAPeer, DEMO_VASPS as DEMO_VASPS_A, DEMO_A, SANDBOX_CARAVAN, demoWallet, type ProviderAPeer } from "./sandbox/provider_a/index.ts";
import { startProviderEBridge, type ProviderEBridge, type SandboxVaspInput } from "./sandbox/provider_e/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "./adapters/providers/provider_b/crypto.ts";
import { publicKeyOf, randomPrivateKey } from "./adapters/providers/provider_e/crypto.ts";
import { listen, type RunningServer } from "./adapters/server/index.ts";
import type { CountryCode } from "./domain/ivms101/index.ts";
import { runWallets } from "./cli/wallets.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY as SCREENING_C_KEY, type ScreeningCSandbox } from "./sandbox/screening_c/index.ts";
import { startScreeningDSandbox, SANDBOX_SCREENING_D_KEY, type ScreeningDSandbox } from "./sandbox/screening_d/index.ts";
import { setCompanyProfile } from "./adapters/storage/repos/thresholds.ts";

const person = (family: string, given: string, country: string) => ({
  naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" as const }] }, countryOfResidence: country as CountryCode },
});

const SENDERS = [
  { name: "Jane van Dyke", family: "van Dyke", given: "Jane", country: "NL", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" },
  { name: "Kofi Mensah", family: "Mensah", given: "Kofi", country: "GH", address: "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB" },
];
const BENEFICIARIES = {
  good: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  denied: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  unknown: "0x52908400098527886E0F7030069857D2E4169EE7",
  /** Alpine Exchange's customer whose name is on the sandbox watch list (screening_c). */
  watched: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  /** On the sandbox vendor's risk list with a score of 0.92 (screening_d). */
  risky: "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1",
};
const RUTH = person("Roe", "Ruth", "CH");
const VIKTOR = person("Krasnov", "Viktor", "CY");

/** provider_a's counterparties (VASPs only the provider_a network knows): Harbour authorizes, Lighthouse gets flagged. */
const HARBOUR = demoWallet(DEMO_A.harbour);
const LIGHTHOUSE = demoWallet(DEMO_A.lighthouse);
/** ETH's CAIP-19 asset ID, as provider_a names assets. */
const ETH_ASSET_ID = "eip155:1/slip44:60";

/**
 * provider_e's counterparty: a VASP only the provider_e bridge knows, at an address no other demo VASP owns (the
 * bridge's ready-made DEMO_VASPS share provider_b's demo addresses, so the demo uses its own). It confirms its address,
 * accepts permission requests, answers our information requests, and sends to our customers.
 */
const NORDIC = { code: "NORDICBANK", name: "Nordic Bank", address: "0x27b1fdb04752bbc536007a920d24acb045561c26" };
const DEMO_VASPS_E: SandboxVaspInput[] = [{ code: NORDIC.code, name: NORDIC.name, addresses: [NORDIC.address] }];
const INGRID = person("Larsen", "Ingrid", "NO");
/** Caravan's own code in the provider_e directory. */
const CARAVAN_E_CODE = "CARAVANDEMO";

const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

export interface DemoOptions {
  port: number;
  dbPath?: string;
  /** Transfers to send before stopping (default: until interrupted). */
  count?: number;
  intervalMs?: number;
  log?: (line: string) => void;
}

export interface RunningDemo {
  service: RunningService;
  peer: ProviderBPeer;
  peerA: ProviderAPeer;
  bridgeE: ProviderEBridge;
  screening: { c: ScreeningCSandbox; d: ScreeningDSandbox };
  receiver: RunningServer;
  received: { event: string; id: string }[];
  apiKey: string;
  stop(): Promise<void>;
  done: Promise<void>;
}

export async function runDemo(o: DemoOptions): Promise<RunningDemo> {
  const log = o.log ?? ((l: string) => console.log(l));
  const peer = await startProviderBPeer({
    vasps: [
      {
        entityId: "VASP-ALPINE",
        name: "Alpine Exchange",
        country: "CH",
        customers: { ruth: [RUTH], viktor: [VIKTOR] },
        wallets: [
          { address: BENEFICIARIES.good, customer: "ruth" },
          { address: BENEFICIARIES.denied, customer: "ruth" },
          { address: BENEFICIARIES.watched, customer: "viktor" },
          { address: BENEFICIARIES.risky, customer: "ruth" },
        ],
        deny: [{ address: BENEFICIARIES.denied, reasonType: "SANCTION_LIST" }],
      },
    ],
  });
  // The provider_a network (OAuth, discovery, transfers, Standard-Webhooks-signed events) with its member VASPs.
  const peerA = await startProviderAPeer({ vasps: DEMO_VASPS_A });
  // The provider_e bridge (signed directory, permission requests, txids, information requests) with Nordic Bank.
  const bridgeE = await startProviderEBridge({ vasps: DEMO_VASPS_E });
  // The screening vendors: a name watch list (screening_c) and an address risk list (screening_d).
  const screeningC = await startScreeningCSandbox();
  const screeningD = await startScreeningDSandbox();
  // A local webhook receiver: prints every delivery the service signs and sends.
  const received: { event: string; id: string }[] = [];
  const receiver = await listen(
    async (req) => {
      const body = (await req.json().catch(() => null)) as { event?: string; data?: { id?: string; state?: string } } | null;
      if (body?.event) {
        received.push({ event: body.event, id: body.data?.id ?? "" });
        log(`  webhook ← ${body.event.padEnd(20)} ${body.data?.id ?? ""} ${body.data?.state ?? ""}`);
      }
      return new Response(null, { status: 204 });
    },
    { hostname: "127.0.0.1", port: 0 },
  );
  const dbPath = o.dbPath ?? join(mkdtempSync(join(tmpdir(), "caravan-demo-")), "demo.db");
  const env = {
    ...process.env,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${screeningC.url},us=${screeningC.url},apac=${screeningC.url}`,
    CARAVAN_SCREENING_D_URL: screeningD.url,
    // provider_a's OAuth origin and the API origin its settings may name: the sandbox network.
    CARAVAN_PROVIDER_A_AUTH_URL: peerA.url,
    CARAVAN_PROVIDER_A_API_ORIGINS: peerA.url,
    // provider_e's base address in both environments: the sandbox bridge (the demo never reaches the real network).
    CARAVAN_PROVIDER_E_TEST_URL: bridgeE.baseUrl,
    CARAVAN_PROVIDER_E_LIVE_URL: bridgeE.baseUrl,
  };
  const service = await startService({ dbPath, host: "127.0.0.1", port: o.port, logLevel: "warn", env });
  const tenancy = new Tenancy(service.storage, service.clock);
  const company = tenancy.requireCompany("default");
  const suffix = Date.now().toString(36);
  const officer = tenancy.createMember(company.id, `officer-${suffix}@demo.local`, "owner");
  const key = tenancy.createKey({ companyId: company.id, memberId: officer.id, environment: "test" }).key;
  const liveKey = tenancy.createKey({ companyId: company.id, memberId: officer.id, environment: "live" }).key;
  const api = async (path: string, init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}) => {
    const res = await fetch(service.url + path, {
      method: init.method ?? "GET",
      headers: { "x-api-key": init.key ?? key, "content-type": "application/json", ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };

  // provider_b: credentials in both environments, one switch (live key), registered with the network.
  const seed = randomSeedBase64();
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-DEMO", privateKey: seed, legalName: "Caravan Demo VASP", country: "NL" };
  for (const k of [key, liveKey]) await api("/api/v2/providers/provider_b", { method: "PUT", key: k, body: { credentials } });
  await api("/api/v2/providers/provider_b", { method: "PATCH", key: liveKey, body: { enabled: true } });
  peer.registerCaravan({ entityId: "CARAVAN-DEMO", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: service.url });
  // provider_a: the five settings in both environments, one switch, and Caravan's callback URL registered with the network.
  const credentialsA = { apiUrl: peerA.url, clientId: SANDBOX_CARAVAN.clientId, clientSecret: SANDBOX_CARAVAN.clientSecret, vaspDid: SANDBOX_CARAVAN.did, webhookSecret: SANDBOX_CARAVAN.webhookSecret };
  for (const k of [key, liveKey]) await api("/api/v2/providers/provider_a", { method: "PUT", key: k, body: { credentials: credentialsA } });
  await api("/api/v2/providers/provider_a", { method: "PATCH", key: liveKey, body: { enabled: true } });
  const providerIdA = service.providerSettings.id(company.id, "provider_a")!;
  peerA.registerCaravan({ ...SANDBOX_CARAVAN, webhookUrl: `${service.url}/api/system/trp/provider_a/test/${providerIdA}` });
  // provider_e: the six settings in both environments, one switch, and Caravan registered with the bridge. The callback
  // base URL must be an HTTPS origin (the company's host); the sandbox bridge delivers to the server's loopback origin.
  const privateKeyE = randomPrivateKey();
  const credentialsE = { apiKey: "sandbox-bridge-key", vaspCode: CARAVAN_E_CODE, privateKey: privateKeyE, bridgePublicKey: bridgeE.bridgePublicKey, callbackBaseUrl: "https://caravan-demo.example", discoveryVaspCodes: "*" };
  for (const k of [key, liveKey]) {
    const r = await api("/api/v2/providers/provider_e", { method: "PUT", key: k, body: { credentials: credentialsE } });
    if (r.status !== 200 && r.status !== 201) log(`  (provider_e settings: ${r.status} ${r.body?.code ?? ""})`);
  }
  await api("/api/v2/providers/provider_e", { method: "PATCH", key: liveKey, body: { enabled: true } });
  const providerIdE = service.providerSettings.id(company.id, "provider_e")!;
  bridgeE.registerCaravan({ vaspCode: CARAVAN_E_CODE, publicKey: publicKeyOf(privateKeyE), serverUrl: service.url, environment: "test", providerId: providerIdE, name: "Caravan Demo VASP" });
  // Screening: both vendors' credentials, one switch each, and two rules that read them (Part 2 "Rule").
  for (const k of [key, liveKey]) {
    await api("/api/v2/integrations/screening_c", { method: "PUT", key: k, body: { credentials: { apiKey: SCREENING_C_KEY } } });
    await api("/api/v2/integrations/screening_d", { method: "PUT", key: k, body: { credentials: { apiKey: SANDBOX_SCREENING_D_KEY } } });
  }
  for (const name of ["screening_c", "screening_d"]) await api(`/api/v2/integrations/${name}`, { method: "PATCH", key: liveKey, body: { enabled: true } });
  const C = (await api("/api/v2/integrations/screening_c")).body.data.id;
  const D = (await api("/api/v2/integrations/screening_d")).body.data.id;
  const rules = [
    {
      name: "Watch-list name: hold for review",
      category: "sanctions",
      stage: "precheck",
      action: "require_review",
      severity: "high",
      condition: { rules: [{ type: "if", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", action: "require_review" }] },
    },
    {
      name: "High-risk address: block",
      category: "aml",
      stage: "precheck",
      action: "block",
      condition: { rules: [{ type: "if", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9", action: "block" }] },
    },
  ];
  for (const rule of rules) {
    const r = await api("/api/v2/rules", { method: "POST", body: rule });
    if (r.status !== 201) log(`  (rule: ${r.status} ${r.body?.code ?? ""})`);
  }
  // The filing institution of suspicion reports.
  setCompanyProfile(service.storage, company.id, { legalName: "Caravan Demo VASP", country: "NL" }, service.clock());
  const hook = await api("/api/v2/webhooks", { method: "POST", body: { name: "demo receiver", url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["*"] } });
  if (hook.status !== 201) log(`  (webhooks: ${hook.status} ${hook.body?.code ?? ""})`);

  const customers: { id: string; address: string; persons: unknown[] }[] = [];
  for (const s of SENDERS) {
    const c = await api("/api/v2/customers", { method: "POST", body: { externalId: `demo-${suffix}-${s.given.toLowerCase()}`, name: s.name } });
    const persons = [person(s.family, s.given, s.country)];
    await api(`/api/v2/customers/${c.body.data.id}/travel-rule-identity`, { method: "PUT", body: { status: "verified", persons } });
    const w = await api("/api/v2/wallets", { method: "POST", body: { customerId: c.body.data.id, network: "ethereum", address: s.address, label: "hot wallet" } });
    // An officer attests the hosted wallet (the dashboard's part): incoming transfers need a verified wallet.
    runWallets(service.storage, ["attest", "--id", w.body.data.id, "--note", "hosted by the demo", "--member", officer.email], () => {});
    customers.push({ id: c.body.data.id, address: s.address, persons });
    log(`customer ${c.body.data.id} ${s.name} with a verified identity and a verified wallet`);
  }

  log(`\nCaravan demo at ${service.url} (database ${dbPath})`);
  log(`API key (test): ${key}`);
  log(`provider_b sandbox network at ${peer.url}; webhook receiver at http://127.0.0.1:${receiver.port}/hooks`);
  log(`provider_a sandbox network at ${peerA.url} (as ${SANDBOX_CARAVAN.did}): ${DEMO_VASPS_A.map((v) => `${v.name} ${({ authorize: "authorizes", flag: "gets flagged", reject: "rejects", silent: "stays silent" } as const)[v.behaviour]}`).join(", ")}`);
  log(`provider_e sandbox bridge at ${bridgeE.baseUrl} (as ${CARAVAN_E_CODE}): ${NORDIC.name} owns ${NORDIC.address}, accepts permission requests and answers information requests`);
  log(`screening vendors: screening_c at ${screeningC.url}, screening_d at ${screeningD.url}; rules: ${rules.map((r) => r.name).join("; ")}\n`);

  const plans = [
    { amount: "0.05", to: BENEFICIARIES.good, beneficiary: RUTH, what: "below the threshold: completed at once" },
    { amount: "2", to: BENEFICIARIES.good, beneficiary: RUTH, what: "above the threshold: screened, approved, through provider_b to Alpine Exchange" },
    { amount: "1.5", to: BENEFICIARIES.denied, beneficiary: RUTH, what: "to a sanctioned address: denied by the counterparty" },
    { amount: "3", to: BENEFICIARIES.unknown, beneficiary: RUTH, what: "to an address no VASP owns: no VASP found" },
    { amount: "2.5", to: BENEFICIARIES.watched, beneficiary: VIKTOR, what: "to a watch-listed name: held by screening, then approved through its case" },
    { amount: "1.2", to: BENEFICIARIES.risky, beneficiary: RUTH, what: "to a high-risk address: blocked by screening" },
    { amount: "1.8", to: HARBOUR.address, beneficiary: HARBOUR.persons[0], what: "through provider_a to Harbour Exchange: authorized both sides, accepted, settled", preferredProtocol: "provider_a" },
    { amount: "2.2", to: LIGHTHOUSE.address, beneficiary: LIGHTHOUSE.persons[0], what: "through provider_a to Lighthouse Custody: flagged by the network, held, approved through its case", preferredProtocol: "provider_a" },
    { amount: "1.6", to: NORDIC.address, beneficiary: INGRID, what: "through provider_e to Nordic Bank: permission accepted, transaction reported", preferredProtocol: "provider_e" },
    { amount: "2.4", to: NORDIC.address, beneficiary: INGRID, what: "through provider_e to Nordic Bank: the bank asks for information, held, answered and reviewed, then completed", preferredProtocol: "provider_e", cdd: true },
  ] as { amount: string; to: string; beneficiary: unknown; what: string; preferredProtocol?: string; cdd?: boolean }[];
  const providerId = service.providerSettings.id(company.id, "provider_b")!;
  /** Alpine Exchange sends to one of our customers: a match is verified, a wrong name denied (Part 3, incoming). */
  async function incoming(i: number): Promise<void> {
    const c = customers[i % customers.length];
    const s = SENDERS[i % SENDERS.length];
    const matching = i % 2 === 0;
    const r = await peer.sendIncomingTransfer({
      fromEntityId: "VASP-ALPINE",
      toCaravanEnv: "test",
      providerId,
      asset: "ETH",
      network: "ethereum",
      amount: "2.5",
      tradePrice: "8000",
      isExceedingThreshold: true,
      address: c.address,
      originatorAddress: BENEFICIARIES.good,
      originatorPersons: [RUTH],
      beneficiaryPersons: [matching ? person(s.family, s.given, s.country) : person("Nobody", "Else", s.country)],
    });
    const answer = r.body as { result?: string; reasonType?: string; transferId?: string } | null;
    log(`incoming 2.5 ETH from Alpine Exchange to ${s.name}${matching ? "" : " (under another name)"}: ${answer?.result ?? r.status}${answer?.reasonType ? ` (${answer.reasonType})` : ""}`);
    if (answer?.result === "verified" && answer.transferId) {
      const tx = await peer.sendTxid({ fromEntityId: "VASP-ALPINE", toCaravanEnv: "test", providerId, transferId: answer.transferId, txid: randomHex(32) });
      log(`incoming transaction reported by Alpine Exchange: ${(tx.body as { result?: string } | null)?.result ?? tx.status}`);
    }
  }

  /**
   * Harbour Exchange sends to one of our customers through provider_a (Part 3 "Incoming flow"): created, relationship
   * confirmed, identity appended, originator screened, authorized, accepted once Harbour authorizes; then Harbour
   * settles on chain and the transfer completes with the settlement's hash.
   */
  async function incomingA(i: number): Promise<void> {
    const c = customers[i % customers.length];
    const s = SENDERS[i % SENDERS.length];
    const sent = await peerA.sendIncoming({
      from: DEMO_A.harbour.did,
      to: SANDBOX_CARAVAN.did,
      asset: ETH_ASSET_ID,
      amount: "3",
      beneficiaryAddress: c.address,
      originatorAddress: HARBOUR.address,
      originatorPersons: HARBOUR.persons,
      beneficiaryPersons: [person(s.family, s.given, s.country)],
    });
    log(`incoming 3 ETH via provider_a from ${DEMO_A.harbour.name} to ${s.name}: event ${sent.status ?? "not delivered"}`);
    const id = await incomingIdA(sent.id);
    if (!id) return;
    const accepted = await waitFor(id, ["accepted", "held", "rejected", "failed"]);
    log(`incoming ${id} (provider_a) → ${accepted}`);
    if (accepted !== "accepted") return;
    // Harbour broadcasts the transaction and settles at provider_a: the next event completes the transfer.
    await peerA.update(sent.id, { status: "SETTLED", settlement: { id: "0x" + randomHex(32) } });
    await waitFor(id, ["completed"]);
    const done = (await api(`/api/v2/transfers/${id}`)).body?.data;
    log(`incoming ${id} (provider_a) → ${done?.state} (txHash ${done?.txHash ?? "-"} from Harbour's settlement)`);
  }

  async function incomingIdA(providerTransferId: string): Promise<string | null> {
    for (let i = 0; i < 40 && !stopped; i++) {
      const r = await api(`/api/v2/transfers?direction=incoming&limit=100`);
      const t = (r.body?.data ?? []).find((x: { externalId: string }) => x.externalId === `provider_a-inbound:${providerTransferId}`);
      if (t) return t.id;
      await new Promise((res) => setTimeout(res, 250));
    }
    return null;
  }

  /**
   * Nordic Bank sends to one of our customers through provider_e (Part 3, incoming): its signed, encrypted permission
   * request is verified and decrypted, the transfer created, wallet, identity and name checked, the originator
   * screened, and our signed ACCEPTED sent to the bridge (awaiting_counterparty); the bank's signed txid completes it.
   */
  async function incomingE(i: number): Promise<void> {
    const c = customers[i % customers.length];
    const s = SENDERS[i % SENDERS.length];
    const sent = await bridgeE.sendPermissionRequest({
      from: NORDIC.code,
      originatorPersons: [INGRID],
      beneficiaryPersons: [person(s.family, s.given, s.country)],
      originatorAddress: NORDIC.address,
      beneficiaryAddress: c.address,
      amount: "2",
    });
    log(`incoming 2 ETH via provider_e from ${NORDIC.name} to ${s.name}: permission request ${sent.status}`);
    if (sent.status !== 200) return;
    let id: string | null = null;
    for (let n = 0; n < 40 && !stopped && !id; n++) {
      const r = await api(`/api/v2/transfers?direction=incoming&search=${sent.transferId}`);
      id = r.body?.data?.[0]?.id ?? null;
      if (!id) await new Promise((res) => setTimeout(res, 250));
    }
    if (!id) return;
    const state = await waitFor(id, ["awaiting_counterparty", "held", "rejected", "failed"]);
    log(`incoming ${id} (provider_e) → ${state} (our signed decision at the bridge: ${bridgeE.transfers.get(sent.transferId)?.data.permission_status ?? "none"})`);
    if (state !== "awaiting_counterparty") return;
    // Nordic Bank broadcasts the transaction and reports its hash, signed with its key.
    const tx = await bridgeE.sendTxid(sent.transferId, "0x" + randomHex(32));
    log(`incoming transaction reported by ${NORDIC.name} (signed txid): ${tx.status}`);
    await waitFor(id, ["completed"]);
    const done = (await api(`/api/v2/transfers/${id}`)).body?.data;
    log(`incoming ${id} (provider_e) → ${done?.state} (txHash ${done?.txHash ?? "-"} from ${NORDIC.name}'s txid)`);
  }

  /** Polls a transfer until its state is one of `states` (bounded), and returns the state it has then. */
  async function waitFor(id: string, states: string[]): Promise<string> {
    let state = "";
    for (let i = 0; i < 80 && !stopped; i++) {
      state = (await api(`/api/v2/transfers/${id}`)).body?.data?.state ?? "";
      if (states.includes(state)) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    return state;
  }

  let stopped = false;
  let n = 0;
  const done = (async () => {
    while (!stopped && (o.count === undefined || n < o.count)) {
      const plan = plans[n % plans.length];
      const c = customers[n % customers.length];
      n++;
      const r = await api("/api/v2/transfers", {
        method: "POST",
        headers: { "Idempotency-Key": `demo-${suffix}-${n}` },
        body: {
          asset: "ETH",
          amount: plan.amount,
          network: "ethereum",
          originatorCustomerId: c.id,
          originatorAddress: c.address,
          beneficiaryAddress: plan.to,
          originator: { originatorPersons: c.persons },
          beneficiary: { beneficiaryPersons: [plan.beneficiary] },
          ...(plan.preferredProtocol ? { preferredProtocol: plan.preferredProtocol } : {}),
        },
      });
      log(`transfer ${r.body?.data?.id ?? "-"} ${plan.amount} ETH: ${r.status} ${r.body?.data?.state ?? r.body?.code} — ${plan.what}`);
      if (r.status === 202) void (plan.preferredProtocol === "provider_a" ? followA(r.body.data.id) : plan.preferredProtocol === "provider_e" ? followE(r.body.data.id, plan.cdd === true) : follow(r.body.data.id));
      if (n % plans.length === 0) {
        await incoming(n / plans.length - 1).catch((e) => log(`incoming failed: ${(e as Error).message}`));
        void incomingA(n / plans.length - 1).catch((e) => log(`incoming via provider_a failed: ${(e as Error).message}`));
        void incomingE(n / plans.length - 1).catch((e) => log(`incoming via provider_e failed: ${(e as Error).message}`));
      }
      await new Promise((res) => setTimeout(res, o.intervalMs ?? 3000));
    }
  })();

  /** An officer works a held transfer's case: the screening hit is a false positive, resolved approved. */
  async function resolveHeld(id: string): Promise<void> {
    for (let i = 0; i < 40 && !stopped; i++) {
      const cases = await api("/api/v2/cases?status=open&hasTransfer=true&limit=200");
      const c = (cases.body?.data ?? []).find((x: { transferIds: string[] }) => x.transferIds.includes(id));
      if (c) {
        log(`case ${c.caseNumber} (${c.type}, ${c.priority}) opened for ${id}; the officer resolves it approved`);
        const r = await api(`/api/v2/cases/${c.id}/resolve`, { method: "POST", body: { resolution: "approved", resolutionNote: "False positive: another person of that name" } });
        log(`case ${c.caseNumber} → ${r.body?.data?.status ?? r.body?.code} (transfer action: ${r.body?.meta?.transferAction?.result ?? "none"})`);
        return;
      }
      await new Promise((res) => setTimeout(res, 250));
    }
  }

  async function follow(id: string): Promise<void> {
    let resolving = false;
    for (let i = 0; i < 80 && !stopped; i++) {
      await new Promise((res) => setTimeout(res, 250));
      const t = await api(`/api/v2/transfers/${id}`);
      const state = t.body?.data?.state;
      if (state === "held" && !resolving) {
        resolving = true;
        const check = t.body.data.compliance?.checks?.[0];
        log(`transfer ${id} → held by screening${check ? ` (${check.integration} ${check.status})` : ""}`);
        await resolveHeld(id);
        continue;
      }
      if (state && state !== "queued" && state !== "processing" && state !== "held" && state !== "exchanging") {
        log(`transfer ${id} → ${state}${t.body.data.rejection ? ` (${t.body.data.rejection.reason})` : ""}${t.body.data.beneficiary?.vaspName ? ` via ${t.body.data.cascade.provider} to ${t.body.data.beneficiary.vaspName}` : ""}`);
        if (state === "awaiting_counterparty") {
          const txHash = "0x" + randomHex(32);
          const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash } });
          log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.code} (transaction reported to provider_b)`);
        }
        return;
      }
    }
  }

  /**
   * A transfer through provider_a: its events move it (exchanging → awaiting_counterparty → accepted); once accepted
   * the caller reports the transaction (`accept` + `txHash`, settled at provider_a). Flagged by the network, it is
   * held with a case; the officer approves it (awaiting_counterparty without calling the provider), the network
   * clears the flag and the VASP authorizes, and the next event authorizes on our side.
   */
  async function followA(id: string): Promise<void> {
    let resolved = false;
    for (let round = 0; round < 2 && !stopped; round++) {
      const state = await waitFor(id, ["accepted", "held", "rejected", "failed", "completed"]);
      const t = (await api(`/api/v2/transfers/${id}`)).body?.data;
      if (state === "held" && !resolved) {
        resolved = true;
        log(`transfer ${id} → held by provider_a (flagged by the network at ${t?.beneficiary?.vaspName ?? "the beneficiary VASP"})`);
        await resolveHeld(id);
        const after = await waitFor(id, ["awaiting_counterparty", "held", "rejected"]);
        log(`transfer ${id} (provider_a) → ${after} after its case, without calling the provider`);
        if (after !== "awaiting_counterparty" || !t?.cascade?.externalId) return;
        // The network clears the flag and the beneficiary VASP authorizes: the event authorizes our side.
        await peerA.update(t.cascade.externalId, { status: "PENDING", agent: { role: "BENEFICIARY", status: "AUTHORIZED" } });
        continue;
      }
      log(`transfer ${id} → ${state}${t?.rejection ? ` (${t.rejection.reason})` : ""}${t?.beneficiary?.vaspName ? ` via ${t.cascade.provider} to ${t.beneficiary.vaspName}` : ""}`);
      if (state === "accepted") {
        const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
        log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.error ?? a.body?.code} (settled at provider_a)`);
      }
      return;
    }
  }

  /**
   * A transfer through provider_e: Nordic Bank confirms its address (signed answer), our signed, encrypted permission
   * request goes through the bridge, the bank accepts → awaiting_counterparty; the caller reports the transaction
   * (`accept` + `txHash`: a signed txid at the bridge) → completed. With `cdd` the bank first asks for information.
   */
  async function followE(id: string, cdd: boolean): Promise<void> {
    const state = await waitFor(id, ["awaiting_counterparty", "held", "rejected", "failed"]);
    const t = (await api(`/api/v2/transfers/${id}`)).body?.data;
    log(`transfer ${id} → ${state}${t?.rejection ? ` (${t.rejection.reason})` : ""}${t?.beneficiary?.vaspName ? ` via ${t.cascade.provider} to ${t.beneficiary.vaspName}` : ""}`);
    if (state !== "awaiting_counterparty") return;
    if (cdd && !(await informationRound(id, t.cascade.externalId))) return;
    const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
    log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.error ?? a.body?.code} (signed txid sent to provider_e)`);
  }

  /**
   * Nordic Bank asks for information (REQUEST_CDD) on an approved outgoing transfer: it is held; the officer reads the
   * request and its draft (drawn from the originator's verified identity), replies with the draft plus what it lacks,
   * waits for the reply to be sent and reviews the request; the transfer returns to awaiting_counterparty. True then.
   */
  async function informationRound(id: string, externalId: string): Promise<boolean> {
    const path = `/api/v2/transfers/${id}/information-requests`;
    const fields = { country_of_residence: true, other_cdd_info: "What is the purpose of the payment?" };
    const asked = await bridgeE.sendCdd(externalId, NORDIC.code, "REQUEST_CDD", fields);
    log(`${NORDIC.name} asks for information on ${id} (REQUEST_CDD: ${Object.keys(fields).join(", ")}): ${asked.status}`);
    if ((await waitFor(id, ["held"])) !== "held") return false;
    const list = (await api(path)).body?.data;
    const request = (list?.messages ?? []).find((m: { type: string; direction: string }) => m.type === "REQUEST_CDD" && m.direction === "inbound");
    if (!request?.draft) return false;
    const draft = request.draft as { information: Record<string, unknown>; missing: string[] };
    log(`transfer ${id} → held (information request ${request.id} awaiting review, pending: ${list.pending}); draft from the verified identity: ${Object.keys(draft.information).join(", ") || "nothing"}; missing: ${draft.missing.join(", ") || "nothing"}`);
    const cases = await api("/api/v2/cases?status=open&hasTransfer=true&limit=200");
    const c = (cases.body?.data ?? []).find((x: { transferIds: string[] }) => x.transferIds.includes(id));
    if (c) log(`case ${c.caseNumber} (${c.type}, ${c.priority}) opened for ${id} by the information request; it stays open for the officer's notes`);
    // The officer sends the draft, answering what it lacks (the free-text question) from the customer file.
    const information = { ...draft.information, ...(draft.missing.includes("other_cdd_info") ? { other_cdd_info: "Rent for a holiday flat in Bergen" } : {}) };
    const reply = await api(path, { method: "POST", body: { action: "reply", idempotencyKey: crypto.randomUUID(), requestId: request.id, information } });
    const messageId = reply.body?.data?.messageId as string | undefined;
    log(`officer replies to ${request.id} with the draft: ${reply.status} ${reply.body?.data?.status ?? reply.body?.code}`);
    if (!messageId) return false;
    let status = "";
    for (let i = 0; i < 80 && !stopped; i++) {
      status = ((await api(path)).body?.data?.messages ?? []).find((m: { id: string }) => m.id === messageId)?.status ?? "";
      if (status === "sent" || status === "failed") break;
      await new Promise((res) => setTimeout(res, 250));
    }
    log(`reply ${messageId} → ${status} (signed, encrypted for ${NORDIC.name})`);
    if (status !== "sent") return false;
    const review = await api(path, { method: "POST", body: { action: "review", reviewedMessageIds: [request.id], note: "Answered from the verified identity; purpose confirmed with the customer" } });
    log(`officer reviews ${request.id}: ${review.status} ${review.body?.data?.status ?? review.body?.code}`);
    const after = await waitFor(id, ["awaiting_counterparty", "rejected", "failed"]);
    log(`transfer ${id} → ${after} after the review (beneficiary screened again)`);
    return after === "awaiting_counterparty";
  }

  return {
    service,
    peer,
    peerA,
    bridgeE,
    screening: { c: screeningC, d: screeningD },
    receiver,
    received,
    apiKey: key,
    done,
    async stop() {
      stopped = true;
      await done.catch(() => {});
      await service.stop();
      await peer.stop();
      await peerA.stop();
      await bridgeE.stop();
      await receiver.stop();
      await screeningC.stop();
      await screeningD.stop();
    },
  };
}
