// `caravan demo`: the service plus sandbox peers, demo customers and a stream of transfers, so a newcomer sees
// transfers move, get refused and complete within a minute. Everything talks real HTTP on loopback.
import process from "node:process";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { startService, type RunningService } from "./services.ts";
import { Tenancy } from "./adapters/storage/repos/tenancy.ts";
import { startProviderBPeer, type ProviderBPeer } from "./sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "./adapters/providers/provider_b/crypto.ts";
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
  log(`screening vendors: screening_c at ${screeningC.url}, screening_d at ${screeningD.url}; rules: ${rules.map((r) => r.name).join("; ")}\n`);

  const plans = [
    { amount: "0.05", to: BENEFICIARIES.good, beneficiary: RUTH, what: "below the threshold: completed at once" },
    { amount: "2", to: BENEFICIARIES.good, beneficiary: RUTH, what: "above the threshold: screened, approved, through provider_b to Alpine Exchange" },
    { amount: "1.5", to: BENEFICIARIES.denied, beneficiary: RUTH, what: "to a sanctioned address: denied by the counterparty" },
    { amount: "3", to: BENEFICIARIES.unknown, beneficiary: RUTH, what: "to an address no VASP owns: no VASP found" },
    { amount: "2.5", to: BENEFICIARIES.watched, beneficiary: VIKTOR, what: "to a watch-listed name: held by screening, then approved through its case" },
    { amount: "1.2", to: BENEFICIARIES.risky, beneficiary: RUTH, what: "to a high-risk address: blocked by screening" },
  ];
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
        },
      });
      log(`transfer ${r.body?.data?.id ?? "-"} ${plan.amount} ETH: ${r.status} ${r.body?.data?.state ?? r.body?.code} — ${plan.what}`);
      if (r.status === 202) void follow(r.body.data.id);
      if (n % plans.length === 0) await incoming(n / plans.length - 1).catch((e) => log(`incoming failed: ${(e as Error).message}`));
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

  return {
    service,
    peer,
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
      await receiver.stop();
      await screeningC.stop();
      await screeningD.stop();
    },
  };
}
