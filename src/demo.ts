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
};

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
        customers: { ruth: [person("Roe", "Ruth", "CH")] },
        wallets: [{ address: BENEFICIARIES.good, customer: "ruth" }, { address: BENEFICIARIES.denied, customer: "ruth" }],
        deny: [{ address: BENEFICIARIES.denied, reasonType: "SANCTION_LIST" }],
      },
    ],
  });
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
  log(`provider_b sandbox network at ${peer.url}; webhook receiver at http://127.0.0.1:${receiver.port}/hooks\n`);

  const plans = [
    { amount: "0.05", to: BENEFICIARIES.good, what: "below the threshold: completed at once" },
    { amount: "2", to: BENEFICIARIES.good, what: "above the threshold: through provider_b to Alpine Exchange" },
    { amount: "1.5", to: BENEFICIARIES.denied, what: "to a sanctioned address: denied by the counterparty" },
    { amount: "3", to: BENEFICIARIES.unknown, what: "to an address no VASP owns: no VASP found" },
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
      originatorPersons: [person("Roe", "Ruth", "CH")],
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
          beneficiary: { beneficiaryPersons: [person("Roe", "Ruth", "CH")] },
        },
      });
      log(`transfer ${r.body?.data?.id ?? "-"} ${plan.amount} ETH: ${r.status} ${r.body?.data?.state ?? r.body?.code} — ${plan.what}`);
      if (r.status === 202) void follow(r.body.data.id);
      if (n % plans.length === 0) await incoming(n / plans.length - 1).catch((e) => log(`incoming failed: ${(e as Error).message}`));
      await new Promise((res) => setTimeout(res, o.intervalMs ?? 3000));
    }
  })();

  async function follow(id: string): Promise<void> {
    for (let i = 0; i < 60 && !stopped; i++) {
      await new Promise((res) => setTimeout(res, 250));
      const t = await api(`/api/v2/transfers/${id}`);
      const state = t.body?.data?.state;
      if (state && state !== "queued" && state !== "processing") {
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
    },
  };
}
