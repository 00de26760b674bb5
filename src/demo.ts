// `caravan demo`: the service plus sandbox peers (provider_b, provider_a and provider_e networks, screening vendors), demo
// customers and rounds of transfers, so a newcomer sees transfers move, get refused, get held, have their cases worked
// and a suspicion report drafted within a minute, one line per step. The banner says how to open the console on it;
// a run of `count` rounds ends with a summary and the path of its database. A step that waits longer than 20 s says
// what it waits for. Everything talks real HTTP on loopback. On SQLite (a fresh file, or CARAVAN_DB) or PostgreSQL
// (`databaseUrl`): the demo names no engine, it goes through the server's API and its engine-neutral bundle. With
// `nodes: 2` (PostgreSQL only) a second node serves beside this process's: a `caravan serve` process of its own on
// another loopback port, the same database and key files; transfers are created on the first node and worked (actions,
// cases, reads) on the second, each line saying which node served it.
import process from "node:process";
import { dirname, join, resolve } from "node:path";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { SHARDS } from "./ports/cluster.ts";
import { tmpdir } from "node:os";
import { startService, type RunningService } from "./services.ts";
import { startProviderBPeer, type ProviderBPeer } from "./sandbox/provider_b/index.ts";
import { startProviderAPeer, DEMO_VASPS as DEMO_VASPS_A, DEMO_A, SANDBOX_CARAVAN, demoWallet, type ProviderAPeer } from "./sandbox/provider_a/index.ts";
import { startProviderEBridge, type ProviderEBridge, type SandboxVaspInput } from "./sandbox/provider_e/index.ts";
import { startTrpPeer, type TrpPeer } from "./sandbox/provider_d/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "./adapters/providers/provider_b/crypto.ts";
import { publicKeyOf, randomPrivateKey } from "./adapters/providers/provider_e/crypto.ts";
import { listen, type RunningServer } from "./adapters/server/index.ts";
import type { CountryCode } from "./domain/ivms101/index.ts";
import { runWallets } from "./cli/wallets.ts";
import { cliContext } from "./cli/entry.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY as SCREENING_C_KEY, type ScreeningCSandbox } from "./sandbox/screening_c/index.ts";
import { startScreeningDSandbox, SANDBOX_SCREENING_D_KEY, type ScreeningDSandbox } from "./sandbox/screening_d/index.ts";

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
/**
 * provider_d's counterparty (TRP over mutual TLS): the sandbox TRP peer, its own test CA, a Travel Address per account.
 * It approves inquiries at once with its address, takes our confirmation, and sends to our customers' Travel Addresses.
 */
const MERIDIAN = { name: "Meridian VASP", lei: "506700T7Z685VUOZL877", account: "acct-7", address: "0x8ba1f109551bd432803012645ac136ddd64dba72" };
const MIRA = person("Okafor", "Mira", "GB");
/** Caravan's own code in the provider_e directory. */
const CARAVAN_E_CODE = "CARAVANDEMO";

const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

export interface DemoOptions {
  port: number;
  /** The SQLite file (CARAVAN_DB); with `databaseUrl`, where the key files are kept (default: a fresh directory). */
  dbPath?: string;
  /** `--database-url`: the demo on this PostgreSQL database (empty, or filled by an earlier run with the same keys). */
  databaseUrl?: string;
  /** Rounds to run, then a summary (default: until interrupted). A round is every plan once, then the incoming ones. */
  count?: number;
  /** Pause between two transfers of a round (default 3 s). */
  intervalMs?: number;
  /** Print each webhook delivery the local receiver gets (`--webhooks`, `-v`). */
  webhooks?: boolean;
  /** How long a step waits before the demo says what it is waiting for (default 20 s), then again each time as long. */
  stallNoticeMs?: number;
  /** How long a step waits at most before the demo gives up on it and says so (default 3 minutes). */
  giveUpMs?: number;
  /**
   * `--nodes 2` (with `databaseUrl` only): two nodes of one service, this process's and a `caravan serve` child on
   * another loopback port; creates go to the first, actions, cases and reads to the second. Default 1.
   */
  nodes?: number;
  log?: (line: string) => void;
}

/** One node of the demo's service: its ID, its address, and what the demo asked of it. */
export interface DemoNode {
  id: string;
  url: string;
  /** null: this process's node; else the child process's ID. */
  pid: number | null;
  /** Requests it answered, by kind: `creates`, `actions`, `cases`, `reads`, `setup`. */
  served: Record<string, number>;
}

/** What a finished demo leaves: the outcome of every transfer of the run, the reports drafted and the cases still open. */
export interface DemoSummary {
  rounds: number;
  transfers: number;
  /** Transfers of this run by their state at the end, e.g. `{ completed: 17, rejected: 5, failed: 2 }`. */
  byState: Record<string, number>;
  reports: string[];
  openCases: { caseNumber: string; type: string }[];
  /** The SQLite file, or on PostgreSQL the place beside which the key files are kept. */
  dbPath: string;
  /** Where the data is: the SQLite file, or `PostgreSQL at host:port/db`. */
  where: string;
}

export interface RunningDemo {
  service: RunningService;
  peer: ProviderBPeer;
  peerA: ProviderAPeer;
  bridgeE: ProviderEBridge;
  peerD: TrpPeer;
  screening: { c: ScreeningCSandbox; d: ScreeningDSandbox };
  receiver: RunningServer;
  received: { event: string; id: string }[];
  apiKey: string;
  dbPath: string;
  /** On PostgreSQL: the file (0600, beside the master key) that holds CARAVAN_DATABASE_URL and CARAVAN_DB for the printed commands. */
  envFile: string | null;
  /** The nodes serving the demo: this process's first, then the child's with `nodes: 2`. */
  nodes: DemoNode[];
  /** Stops the demo; after an interruption (no summary yet) it prints the summary of what was done so far first. */
  stop(): Promise<void>;
  /** Settles once the rounds asked for are done, every transfer followed to its end and the summary printed. */
  done: Promise<DemoSummary | undefined>;
}

export async function runDemo(o: DemoOptions): Promise<RunningDemo> {
  const log = o.log ?? ((l: string) => console.log(l));
  const nodeCount = o.nodes ?? 1;
  if (!(nodeCount === 1 || nodeCount === 2)) throw new Error("nodes must be 1 or 2");
  if (nodeCount > 1 && o.databaseUrl === undefined) throw new Error("--nodes 2 needs --database-url: the nodes of one service share one PostgreSQL database");
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
  // The TRP peer (provider_d) with its own test CA; Caravan's TRP certificate is issued by that CA, so each side accepts
  // the other, and Caravan's own mutual-TLS listener serves it.
  const peerD = await startTrpPeer({ name: MERIDIAN.name, lei: MERIDIAN.lei, addresses: { [MERIDIAN.account]: MERIDIAN.address } });
  const oursD = peerD.ca.issue("caravan-demo.localhost");
  const tlsDir = mkdtempSync(join(tmpdir(), "caravan-demo-trp-"));
  writeFileSync(join(tlsDir, "cert.pem"), oursD.certificate);
  writeFileSync(join(tlsDir, "key.pem"), oursD.privateKey, { mode: 0o600 });
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
        if (o.webhooks) log(`  webhook ← ${body.event.padEnd(20)} ${body.data?.id ?? ""} ${body.data?.state ?? ""}`);
      }
      return new Response(null, { status: 204 });
    },
    { hostname: "127.0.0.1", port: 0 },
  );
  const tempData = o.dbPath === undefined;
  const dbPath = resolve(o.dbPath ?? join(mkdtempSync(join(tmpdir(), "caravan-demo-")), "demo.db"));
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
    // provider_d: Caravan's own TRP listener (mutual TLS) on a free port.
    CARAVAN_TRP_TLS_PORT: "0",
    CARAVAN_TRP_TLS_CERT: join(tlsDir, "cert.pem"),
    CARAVAN_TRP_TLS_KEY: join(tlsDir, "key.pem"),
    // Two nodes: their names in the node registry, in the lines below and in the summary.
    ...(nodeCount > 1 ? { CARAVAN_NODE_ID: NODE_IDS[0] } : {}),
  };
  const pg = o.databaseUrl !== undefined;
  // On PostgreSQL the key files still live in a directory of ours (beside dbPath), made private as SQLite's is.
  if (pg) mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const stopPeers = async () => {
    await peer.stop();
    await peerA.stop();
    await bridgeE.stop();
    await peerD.close();
    rmSync(tlsDir, { recursive: true, force: true });
    await receiver.stop();
    await screeningC.stop();
    await screeningD.stop();
  };
  const service = await startService({ dbPath, databaseUrl: o.databaseUrl, host: "127.0.0.1", port: o.port, logLevel: "warn", env }).catch(async (e: unknown) => {
    await stopPeers().catch(() => undefined);
    // A PostgreSQL database filled by an earlier run was sealed with that run's master key, not this fresh one's.
    if (pg && tempData && e instanceof Error) e.message += ` (the demo made new keys in ${dirname(dbPath)}: give it an empty database, or CARAVAN_DB=<the earlier run's demo.db> to reuse that run's keys)`;
    throw e;
  });
  const nodes: DemoNode[] = [{ id: nodeCount > 1 ? NODE_IDS[0] : "demo", url: service.url, pid: null, served: {} }];
  // The second node: `caravan serve` in a process of its own, with this one's settings, database and key files (the
  // first node has just written the key files it reads), on another loopback port.
  let child: NodeProcess | null = null;
  if (nodeCount > 1) {
    child = await startNodeProcess({ ...env, CARAVAN_DATABASE_URL: o.databaseUrl!, CARAVAN_DB: dbPath, HOST: "127.0.0.1", PORT: "0", CARAVAN_LOG: "warn", CARAVAN_NODE_ID: NODE_IDS[1] }).catch(
      async (e: unknown) => {
        await service.stop().catch(() => undefined);
        await stopPeers().catch(() => undefined);
        throw e;
      },
    );
    nodes.push({ id: NODE_IDS[1], url: child.url, pid: child.pid, served: {} });
    // Within two ticks of the second node's join this one gives back its share of the shards. The demo begins once
    // it has, so that no transfer's actor is moved in the middle of a provider call (the new holder would take that
    // call as cut off by a crash: its outcome unknown, the transfer failed).
    const share = Math.ceil(SHARDS / nodes.length);
    for (let waited = 0; service.node && (service.node.nodeCount() < nodes.length || service.node.leases().length > share) && waited < 60_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
  }
  const first = nodes[0];
  const other = nodes[nodes.length - 1];
  /** Setup (before the banner) on the first node; then creates there, and everything else on the other one. */
  let settingUp = true;
  const nodeFor = (method: string, path: string): { node: DemoNode; kind: string } => {
    if (settingUp) return { node: first, kind: "setup" };
    if (method === "POST" && CREATES.has(path)) return { node: first, kind: "creates" };
    if (path.startsWith("/api/v2/cases")) return { node: other, kind: "cases" };
    return { node: other, kind: method === "GET" ? "reads" : "actions" };
  };
  /** ` [node]` after a line's text when two nodes serve: which node answered the request the line reports. */
  const at = (r: { node: string }) => (nodes.length > 1 ? ` [${r.node}]` : "");
  const tenancy = service.repositories.tenancy;
  const company = await tenancy.requireCompany("default");
  const suffix = Date.now().toString(36);
  const officer = await tenancy.createMember(company.id, `officer-${suffix}@demo.local`, "owner");
  // An analyst, made on purpose: the banner prints the command that issues a key for them.
  const analyst = await tenancy.createMember(company.id, `analyst-${suffix}@demo.local`, "analyst");
  const key = (await tenancy.createKey({ companyId: company.id, memberId: officer.id, environment: "test" })).key;
  const liveKey = (await tenancy.createKey({ companyId: company.id, memberId: officer.id, environment: "live" })).key;
  const api = async (path: string, init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}) => {
    const method = init.method ?? "GET";
    const { node, kind } = nodeFor(method, path.split("?")[0]);
    node.served[kind] = (node.served[kind] ?? 0) + 1;
    const res = await fetch(node.url + path, {
      method,
      headers: { "x-api-key": init.key ?? key, "content-type": "application/json", ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any, node: node.id };
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
  const providerIdA = (await service.providerSettings.id(company.id, "provider_a"))!;
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
  const providerIdE = (await service.providerSettings.id(company.id, "provider_e"))!;
  bridgeE.registerCaravan({ vaspCode: CARAVAN_E_CODE, publicKey: publicKeyOf(privateKeyE), serverUrl: service.url, environment: "test", providerId: providerIdE, name: "Caravan Demo VASP" });
  // provider_d: our identity, certificate and key, the peer's CA accepted, the peer known by its certificate; one switch.
  const credentialsD = {
    baseUrl: service.trpUrl ?? "",
    legalName: "Caravan Demo VASP",
    lei: "5493001KJTIIGC8Y1R12",
    tlsCertificate: oursD.certificate,
    tlsPrivateKey: oursD.privateKey,
    clientCaCertificates: peerD.ca.certificate,
    counterparties: JSON.stringify([{ name: MERIDIAN.name, lei: MERIDIAN.lei, endpoint: peerD.url, certificate: peerD.identity.certificate }]),
  };
  for (const k of [key, liveKey]) {
    const r = await api("/api/v2/providers/provider_d", { method: "PUT", key: k, body: { credentials: credentialsD } });
    if (r.status !== 200 && r.status !== 201) log(`  (provider_d settings: ${r.status} ${r.body?.code ?? ""})`);
  }
  await api("/api/v2/providers/provider_d", { method: "PATCH", key: liveKey, body: { enabled: true } });
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
  const profile = await service.repositories.thresholds.setProfile(company.id, { legalName: "Caravan Demo VASP", country: "NL" }, service.clock());
  if (!profile.ok) throw new Error(`demo profile: ${profile.errors.join("; ")}`);
  const hook = await api("/api/v2/webhooks", { method: "POST", body: { name: "demo receiver", url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["*"] } });
  if (hook.status !== 201) log(`  (webhooks: ${hook.status} ${hook.body?.code ?? ""})`);

  const customers: { id: string; address: string; persons: unknown[]; walletId: string }[] = [];
  for (const s of SENDERS) {
    const c = await api("/api/v2/customers", { method: "POST", body: { externalId: `demo-${suffix}-${s.given.toLowerCase()}`, name: s.name } });
    const persons = [person(s.family, s.given, s.country)];
    await api(`/api/v2/customers/${c.body.data.id}/travel-rule-identity`, { method: "PUT", body: { status: "verified", persons } });
    const w = await api("/api/v2/wallets", { method: "POST", body: { customerId: c.body.data.id, network: "ethereum", address: s.address, label: "hot wallet" } });
    // An officer attests the hosted wallet (the dashboard's part): incoming transfers need a verified wallet.
    await runWallets(cliContext(service.engine, dbPath), ["attest", "--id", w.body.data.id, "--note", "hosted by the demo", "--member", officer.email], () => {});
    customers.push({ id: c.body.data.id, address: s.address, persons, walletId: w.body.data.id });
    log(`customer ${c.body.data.id} ${s.name} with a verified identity and a verified wallet`);
  }


  // The banner: where everything is, and how to look at it while it runs.
  const masterKeyAt = process.env.CARAVAN_MASTER_KEY ? "CARAVAN_MASTER_KEY (set it again to open this database)" : (process.env.CARAVAN_MASTER_KEY_FILE || join(dirname(dbPath), "master.key"));
  // On PostgreSQL the commands read the URL from a private file beside the keys: the password is never printed.
  const envFile = pg ? join(dirname(dbPath), "demo.env") : null;
  if (envFile) writeFileSync(envFile, `CARAVAN_DATABASE_URL=${o.databaseUrl}\nCARAVAN_DB=${dbPath}\n`, { mode: 0o600 });
  const cli = envFile ? `bun --env-file=${envFile} src/main.ts` : `CARAVAN_DB=${dbPath} bun src/main.ts`;
  const keysCommand = `${cli} keys create --env test --member ${analyst.email}`;
  const setupCommand = `${cli} members setup --email ${officer.email}`;
  const where = pg ? service.engine.where : dbPath;
  log("");
  log(`Caravan demo running at ${nodes.map((n) => n.url).join(" and ")}${nodes.length > 1 ? ` (${nodes.length} nodes of one service)` : ""}`);
  if (child) log(`  nodes         ${first.id} at ${first.url} (this process): creates; ${other.id} at ${other.url} (process ${child.pid}): actions, cases and reads`);
  log(`  database      ${where} (personal data sealed with the master key in ${masterKeyAt}${envFile ? `; its URL for the commands below in ${envFile}` : ""})`);
  log(`  API key       ${key} (owner, test environment)`);
  log(`  console       bun run console -- --url ${other.url} --key ${key}${child ? `   (node ${other.id}: the transfers created on ${first.id} appear and move live)` : ""}`);
  log(`  analyst key   ${keysCommand}   (prints a key that sees personal data masked; give it to --key)`);
  log(`  sign in       ${setupCommand}   (prints a setup code; then bun run console -- --url ${service.url} without --key: drafting, filing and promoting need a member's sign-in)`);
  log(`  webhooks      every event signed and sent to http://127.0.0.1:${receiver.port}/hooks; ${o.webhooks ? "each delivery is printed (webhook ← …)" : "add --webhooks (or -v) to print each delivery"}`);
  log(`  provider_b    sandbox network at ${peer.url}: Alpine Exchange (a deny list, its own key)`);
  log(`  provider_a    sandbox network at ${peerA.url} (as ${SANDBOX_CARAVAN.did}): ${DEMO_VASPS_A.map((v) => `${v.name} ${({ authorize: "authorizes", flag: "gets flagged", reject: "rejects", silent: "stays silent" } as const)[v.behaviour]}`).join(", ")}`);
  log(`  provider_e    sandbox bridge at ${bridgeE.baseUrl} (as ${CARAVAN_E_CODE}): ${NORDIC.name} accepts permission requests and asks for information`);
  log(`  provider_d    TRP peer at ${peerD.url} (${MERIDIAN.name}, its own test CA); Caravan's TRP listener at ${service.trpUrl} (mutual TLS)`);
  log(`  screening     screening_c (name watch list) at ${screeningC.url}, screening_d (address risk) at ${screeningD.url}; rules: ${rules.map((r) => r.name).join("; ")}`);
  log(`  ${o.count === undefined ? "rounds        until Ctrl-C (--count N stops after N rounds with a summary)" : `rounds        ${o.count}, then a summary`}`);
  settingUp = false;

  /** `resolution`: how the officer resolves the case of a held transfer; `blocked`: the rule's block opens a case the officer confirms. */
  type Plan = { amount: string; to: string; beneficiary: unknown; what: string; preferredProtocol?: string; cdd?: boolean; resolution?: "approved" | "rejected"; blocked?: boolean };
  const plans: Plan[] = [
    { amount: "0.05", to: BENEFICIARIES.good, beneficiary: RUTH, what: "below the threshold: completed at once" },
    { amount: "2", to: BENEFICIARIES.good, beneficiary: RUTH, what: "above the threshold: screened, approved, through provider_b to Alpine Exchange" },
    { amount: "1.5", to: BENEFICIARIES.denied, beneficiary: RUTH, what: "to a sanctioned address: denied by the counterparty" },
    { amount: "3", to: BENEFICIARIES.unknown, beneficiary: RUTH, what: "to an address no VASP owns: no VASP found" },
    { amount: "2.5", to: BENEFICIARIES.watched, beneficiary: VIKTOR, what: "to a watch-listed name: held by screening, then approved through its case", resolution: "approved" },
    { amount: "4", to: BENEFICIARIES.watched, beneficiary: VIKTOR, what: "to a watch-listed name again: held, the officer rejects it through its case, a suspicion report is drafted", resolution: "rejected" },
    { amount: "1.2", to: BENEFICIARIES.risky, beneficiary: RUTH, what: "to a high-risk address: blocked by screening, the officer confirms the block through its case", blocked: true },
    { amount: "1.8", to: HARBOUR.address, beneficiary: HARBOUR.persons[0], what: "through provider_a to Harbour Exchange: authorized both sides, accepted, settled", preferredProtocol: "provider_a" },
    { amount: "2.2", to: LIGHTHOUSE.address, beneficiary: LIGHTHOUSE.persons[0], what: "through provider_a to Lighthouse Custody: flagged by the network, held, approved through its case", preferredProtocol: "provider_a" },
    { amount: "1.6", to: NORDIC.address, beneficiary: INGRID, what: "through provider_e to Nordic Bank: permission accepted, transaction reported", preferredProtocol: "provider_e" },
    { amount: "2.4", to: NORDIC.address, beneficiary: INGRID, what: "through provider_e to Nordic Bank: the bank asks for information, held, answered and reviewed, then completed", preferredProtocol: "provider_e", cdd: true },
    { amount: "1.4", to: peerD.travelAddress(MERIDIAN.account), beneficiary: MIRA, what: `through provider_d (TRP, mutual TLS) to ${MERIDIAN.name}'s Travel Address: approved with its address, the transaction confirmed`, preferredProtocol: "provider_d" },
  ];
  const providerId = (await service.providerSettings.id(company.id, "provider_b"))!;
  const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
  const stallNoticeMs = o.stallNoticeMs ?? 20_000;
  const giveUpMs = o.giveUpMs ?? 180_000;

  /**
   * Polls until `probe` answers (non-null) and returns it, or null once stopped or after `giveUpMs`. A step that waits
   * longer than `stallNoticeMs` says what it is waiting for (and again each time as long), so a stall is never silent.
   */
  async function until<T>(probe: () => Promise<T | null>, subject: string, waitingFor: string | (() => string)): Promise<T | null> {
    const what = () => (typeof waitingFor === "string" ? waitingFor : waitingFor());
    const started = Date.now();
    let nextNotice = started + stallNoticeMs;
    while (!stopped) {
      const got = await probe();
      if (got !== null) return got;
      const now = Date.now();
      if (now - started >= giveUpMs) {
        log(`${subject}: gave up after ${Math.round((now - started) / 1000)} s waiting for ${what()}`);
        return null;
      }
      if (now >= nextNotice) {
        log(`${subject}: still waiting after ${Math.round((now - started) / 1000)} s for ${what()}`);
        nextNotice = now + stallNoticeMs;
      }
      await sleep(250);
    }
    return null;
  }

  const transferOf = async (id: string) => (await api(`/api/v2/transfers/${id}`)).body?.data as any;

  /** Waits for a transfer to reach one of `states` (or gives up, saying so) and returns the state it has then. */
  async function waitFor(id: string, states: string[], waitingFor: string): Promise<string> {
    let state = "";
    const reached = await until(
      async () => {
        state = (await transferOf(id))?.state ?? "";
        return states.includes(state) ? state : null;
      },
      `transfer ${id}`,
      () => `${waitingFor} (it is ${state || "unknown"}; expecting ${states.join(" or ")})`,
    );
    return reached ?? state;
  }

  /** Alpine Exchange sends to one of our customers: a match is verified, a wrong name denied (Part 3, incoming). */
  async function incoming(i: number): Promise<void> {
    const c = customers[i % customers.length];
    const s = SENDERS[i % SENDERS.length];
    const matching = i % 2 === 0;
    // The transfer it creates is the one provider_b incoming transfer to this address not there before (one at a time).
    const incomingB = async () =>
      ((await api(`/api/v2/transfers?direction=incoming&search=${c.address}&limit=100`)).body?.data ?? []).filter((t: { travelRule?: { protocol?: string } }) => t.travelRule?.protocol === "provider_b").map((t: { id: string }) => t.id) as string[];
    const before = new Set(await incomingB());
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
      const id = await until(async () => (await incomingB()).find((x) => !before.has(x)) ?? null, `incoming from Alpine Exchange (${answer.transferId})`, "Caravan to record the incoming transfer");
      if (id) log(`incoming ${id} (provider_b) → ${(await transferOf(id))?.state} (the name matched our customer's verified identity)`);
      const txid = randomHex(32);
      const tx = await peer.sendTxid({ fromEntityId: "VASP-ALPINE", toCaravanEnv: "test", providerId, transferId: answer.transferId, txid });
      log(`incoming transaction reported by Alpine Exchange: ${(tx.body as { result?: string } | null)?.result ?? tx.status}`);
      if (!id) return;
      const state = await waitFor(id, ["accepted"], "Alpine Exchange's transaction to be recorded");
      log(`incoming ${id} (provider_b) → ${state} (txHash ${(await transferOf(id))?.txHash ?? "-"} reported by Alpine Exchange: nothing left for us to do)`);
    }
  }

  /** Finds the incoming transfer whose external ID holds `externalId` (the provider's transfer ID). */
  function incomingId(externalId: string, who: string): Promise<string | null> {
    return until(
      async () => {
        const r = await api(`/api/v2/transfers?direction=incoming&search=${encodeURIComponent(externalId)}`);
        return (r.body?.data?.[0]?.id as string | undefined) ?? null;
      },
      `incoming from ${who} (${externalId})`,
      "Caravan to record the incoming transfer",
    );
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
    const id = await incomingId(`provider_a-inbound:${sent.id}`, DEMO_A.harbour.name);
    if (!id) return;
    const accepted = await waitFor(id, ["accepted", "held", "rejected", "failed"], "Caravan's checks and Harbour's authorization at provider_a");
    log(`incoming ${id} (provider_a) → ${accepted}`);
    if (accepted !== "accepted") return;
    // Harbour broadcasts the transaction and settles at provider_a: the next event completes the transfer.
    await peerA.update(sent.id, { status: "SETTLED", settlement: { id: "0x" + randomHex(32) } });
    await waitFor(id, ["completed"], "provider_a's settlement event");
    const done = await transferOf(id);
    log(`incoming ${id} (provider_a) → ${done?.state} (txHash ${done?.txHash ?? "-"} from Harbour's settlement)`);
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
    const id = await incomingId(sent.transferId, NORDIC.name);
    if (!id) return;
    const state = await waitFor(id, ["awaiting_counterparty", "held", "rejected", "failed"], "Caravan's checks and its signed decision to the provider_e bridge");
    log(`incoming ${id} (provider_e) → ${state} (our signed decision at the bridge: ${bridgeE.transfers.get(sent.transferId)?.data.permission_status ?? "none"})`);
    if (state !== "awaiting_counterparty") return;
    // Nordic Bank broadcasts the transaction and reports its hash, signed with its key.
    const tx = await bridgeE.sendTxid(sent.transferId, "0x" + randomHex(32));
    log(`incoming transaction reported by ${NORDIC.name} (signed txid): ${tx.status}`);
    await waitFor(id, ["completed"], `${NORDIC.name}'s txid to be taken`);
    const done = await transferOf(id);
    log(`incoming ${id} (provider_e) → ${done?.state} (txHash ${done?.txHash ?? "-"} from ${NORDIC.name}'s txid)`);
  }

  /**
   * Meridian VASP sends to one of our customers over TRP: our Travel Address for the customer's verified wallet (from the
   * API), its inquiry over mutual TLS to Caravan's listener, approved within the request with the wallet's address;
   * then its confirmation with the txid completes the transfer.
   */
  async function incomingD(i: number): Promise<void> {
    const c = customers[i % customers.length];
    const s = SENDERS[i % SENDERS.length];
    const ta = await api(`/api/v2/wallets/${c.walletId}/travel-address`);
    if (ta.status !== 200) return log(`incoming via provider_d: no Travel Address for ${s.name} (${ta.status} ${ta.body?.code ?? ""})`);
    const sent = await peerD.sendInquiry(ta.body.data.travelAddress, {
      asset: { slip0044: 60 },
      amount: "0.8",
      IVMS101: { originator: { originatorPersons: [MIRA], accountNumber: [MERIDIAN.address] }, beneficiary: { beneficiaryPersons: [person(s.family, s.given, s.country)] } },
    });
    const answer = sent.answer as { approved?: { callback: string }; rejected?: string; version?: string };
    log(`incoming 0.8 ETH via provider_d from ${MERIDIAN.name} to ${s.name}'s Travel Address: ${sent.status} ${answer?.approved ? "approved" : answer?.rejected !== undefined ? "rejected" : answer?.version ? "acknowledged" : ""}`);
    const id = /[?&]confirmation=(trf_[0-9a-z]+)\./.exec(answer?.approved?.callback ?? "")?.[1];
    if (!id) return;
    const tx = await peerD.confirm(sent.requestId, { txid: "0x" + randomHex(32) });
    log(`incoming transaction confirmed by ${MERIDIAN.name} (TRP confirmation): ${tx}`);
    await waitFor(id, ["completed"], `${MERIDIAN.name}'s confirmation to be taken`);
    const done = await transferOf(id);
    log(`incoming ${id} (provider_d) → ${done?.state} (txHash ${done?.txHash ?? "-"} from ${MERIDIAN.name}'s confirmation)`);
  }

  /**
   * A transfer to a Travel Address through provider_d: the inquiry over mutual TLS, approved by Meridian VASP with its
   * chain address → awaiting_counterparty; the caller reports the transaction (`accept` + `txHash`: our TRP
   * confirmation with the txid) → completed.
   */
  async function followD(id: string): Promise<void> {
    const state = await waitFor(id, ["awaiting_counterparty", "held", "rejected", "failed"], `${MERIDIAN.name}'s answer to our TRP inquiry`);
    const t = await transferOf(id);
    log(`transfer ${id} → ${describe(t, state)}${state === "awaiting_counterparty" ? ` (beneficiary address ${t?.beneficiary?.address})` : ""}`);
    if (state !== "awaiting_counterparty") return;
    const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
    log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.error ?? a.body?.code} (txid confirmed to ${MERIDIAN.name} over TRP)${at(a)}`);
  }

  /** How a transfer's line ends: its state, a rejection's reason and the provider and VASP that carried it. */
  const describe = (t: any, state: string) =>
    `${state}${t?.rejection ? ` (${t.rejection.reason})` : ""}${t?.beneficiary?.vaspName ? ` via ${t.cascade?.provider} to ${t.beneficiary.vaspName}` : ""}`;

  /**
   * An officer works a held transfer's case: approved (the screening hit is a false positive), or rejected (a true
   * match: the transfer is rejected and a suspicion report drafted, whose number is printed).
   */
  async function resolveHeld(id: string, resolution: "approved" | "rejected" = "approved"): Promise<void> {
    const note = resolution === "approved" ? "False positive: another person of that name" : "True match with the watch list: transfer refused, reported";
    const c = await workCase(id, resolution, note, `the officer resolves it ${resolution}`);
    if (!c || resolution !== "rejected") return;
    const report = await until(
      async () => ((await api(`/api/v2/reports?transferId=${id}`)).body?.data?.[0] as { reportNumber: string; status: string; jurisdiction: string | null; filingDeadline?: { deadline?: string } } | undefined) ?? null,
      `case ${c.caseNumber} (rejected)`,
      "its suspicion report to be drafted",
    );
    if (report) log(`report ${report.reportNumber} drafted for ${id} (${report.status}, ${report.jurisdiction ?? "no jurisdiction"}, due ${report.filingDeadline?.deadline ?? "-"}): the officer writes its narrative and files it (console: Reports)`);
  }

  /** Finds the open case linked to a transfer, prints it and resolves it; the case once resolved, else null. */
  async function workCase(id: string, resolution: "approved" | "rejected", note: string, how: string): Promise<{ caseNumber: string } | null> {
    const c = await until(
      async () => {
        const cases = await api("/api/v2/cases?status=open&hasTransfer=true&limit=200");
        return ((cases.body?.data ?? []) as { id: string; caseNumber: string; type: string; priority: string; transferIds: string[] }[]).find((x) => x.transferIds.includes(id)) ?? null;
      },
      `transfer ${id}`,
      "its case to be opened",
    );
    if (!c) return null;
    log(`case ${c.caseNumber} (${c.type}, ${c.priority}) opened for ${id}; ${how}`);
    const r = await api(`/api/v2/cases/${c.id}/resolve`, { method: "POST", body: { resolution, resolutionNote: note } });
    log(`case ${c.caseNumber} → ${r.body?.data?.status ?? r.body?.code} (${r.body?.data?.resolution ?? "-"}; transfer action: ${r.body?.meta?.transferAction?.result ?? "none"})${at(r)}`);
    return r.status === 200 ? c : null;
  }

  /** A transfer through provider_b (or none): screening, a held one's case, the counterparty's answer, then `accept`. */
  async function follow(id: string, plan: Plan): Promise<void> {
    let state = await waitFor(id, ["held", "awaiting_counterparty", "accepted", "completed", "rejected", "failed", "cancelled"], "screening and Alpine Exchange's answer over provider_b");
    let t = await transferOf(id);
    if (state === "held") {
      const check = t?.compliance?.checks?.[0];
      log(`transfer ${id} → held by screening${check ? ` (${check.integration} ${check.status})` : ""}`);
      await resolveHeld(id, plan.resolution);
      state = await waitFor(id, ["awaiting_counterparty", "accepted", "completed", "rejected", "failed", "cancelled"], "the case's decision and Alpine Exchange's answer over provider_b");
      t = await transferOf(id);
    }
    log(`transfer ${id} → ${describe(t, state)}`);
    if (state === "rejected" && plan.blocked) await workCase(id, "rejected", "Block confirmed: the address is on the vendor's risk list", "the officer confirms the block (resolves it rejected; the transfer is final, no report)");
    if (state === "awaiting_counterparty") {
      const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
      log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.code} (transaction reported to provider_b)${at(a)}`);
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
      const state = await waitFor(id, ["accepted", "held", "rejected", "failed", "completed"], "the provider_a network's events (both sides' authorization)");
      const t = await transferOf(id);
      if (state === "held" && !resolved) {
        resolved = true;
        log(`transfer ${id} → held by provider_a (flagged by the network at ${t?.beneficiary?.vaspName ?? "the beneficiary VASP"})`);
        await resolveHeld(id);
        // The case's transfer action is queued: the transfer leaves held once the transfer's actor has taken it (at
        // once on SQLite's in-process wake-up, a moment later on PostgreSQL), so `held` is no answer to wait for.
        const after = await waitFor(id, ["awaiting_counterparty", "rejected", "failed", "cancelled"], "the case's decision to reach the transfer");
        log(`transfer ${id} (provider_a) → ${after} after its case, without calling the provider`);
        if (after !== "awaiting_counterparty" || !t?.cascade?.externalId) return;
        // The network clears the flag and the beneficiary VASP authorizes: the event authorizes our side.
        await peerA.update(t.cascade.externalId, { status: "PENDING", agent: { role: "BENEFICIARY", status: "AUTHORIZED" } });
        continue;
      }
      log(`transfer ${id} → ${describe(t, state)}`);
      if (state === "accepted") {
        const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
        log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.error ?? a.body?.code} (settled at provider_a)${at(a)}`);
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
    const state = await waitFor(id, ["awaiting_counterparty", "held", "rejected", "failed"], `${NORDIC.name}'s permission decision, relayed by the provider_e bridge`);
    const t = await transferOf(id);
    log(`transfer ${id} → ${describe(t, state)}`);
    if (state !== "awaiting_counterparty") return;
    if (cdd && !(await informationRound(id, t.cascade.externalId))) return;
    const a = await api(`/api/v2/transfers/${id}`, { method: "PATCH", body: { action: "accept", txHash: "0x" + randomHex(32) } });
    log(`transfer ${id} → ${a.body?.data?.state ?? a.body?.error ?? a.body?.code} (signed txid sent to provider_e)${at(a)}`);
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
    if ((await waitFor(id, ["held"], `Caravan to take ${NORDIC.name}'s information request`)) !== "held") return false;
    const list = (await api(path)).body?.data;
    const request = (list?.messages ?? []).find((m: { type: string; direction: string }) => m.type === "REQUEST_CDD" && m.direction === "inbound");
    if (!request?.draft) return false;
    const draft = request.draft as { information: Record<string, unknown>; missing: string[] };
    log(`transfer ${id} → held (information request ${request.id} awaiting review, pending: ${list.pending}); draft from the verified identity: ${Object.keys(draft.information).join(", ") || "nothing"}; missing: ${draft.missing.join(", ") || "nothing"}`);
    const cases = await api("/api/v2/cases?status=open&hasTransfer=true&limit=200");
    const c = (cases.body?.data ?? []).find((x: { transferIds: string[] }) => x.transferIds.includes(id));
    if (c) log(`case ${c.caseNumber} (${c.type}, ${c.priority}) opened for ${id} by the information request; it stays open for the officer (console: Cases)`);
    // The officer sends the draft, answering what it lacks (the free-text question) from the customer file.
    const information = { ...draft.information, ...(draft.missing.includes("other_cdd_info") ? { other_cdd_info: "Rent for a holiday flat in Bergen" } : {}) };
    const reply = await api(path, { method: "POST", body: { action: "reply", idempotencyKey: crypto.randomUUID(), requestId: request.id, information } });
    const messageId = reply.body?.data?.messageId as string | undefined;
    log(`officer replies to ${request.id} with the draft: ${reply.status} ${reply.body?.data?.status ?? reply.body?.code}${at(reply)}`);
    if (!messageId) return false;
    let status = "";
    await until(
      async () => {
        status = ((await api(path)).body?.data?.messages ?? []).find((m: { id: string }) => m.id === messageId)?.status ?? "";
        return status === "sent" || status === "failed" ? status : null;
      },
      `reply ${messageId}`,
      () => `the provider_e bridge to take it (it is ${status || "unknown"})`,
    );
    log(`reply ${messageId} → ${status} (signed, encrypted for ${NORDIC.name})`);
    if (status !== "sent") return false;
    const review = await api(path, { method: "POST", body: { action: "review", reviewedMessageIds: [request.id], note: "Answered from the verified identity; purpose confirmed with the customer" } });
    log(`officer reviews ${request.id}: ${review.status} ${review.body?.data?.status ?? review.body?.code}${at(review)}`);
    const after = await waitFor(id, ["awaiting_counterparty", "rejected", "failed"], "the beneficiary's screening after the review");
    log(`transfer ${id} → ${after} after the review (beneficiary screened again)`);
    return after === "awaiting_counterparty";
  }

  /** Every item of a list route created at or after `since` (newest first, so paging stops at the first older one). */
  async function listSince<T extends { createdAt: string }>(path: string, since: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: any } = await api(`${path}${path.includes("?") ? "&" : "?"}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      const rows = (r.body?.data ?? []) as T[];
      for (const row of rows) if (row.createdAt >= since) out.push(row);
      cursor = rows.length > 0 && rows[rows.length - 1].createdAt >= since ? (r.body?.meta?.cursor ?? null) : null;
    } while (cursor);
    return out;
  }

  /** The summary: each transfer of the run by its state now, the reports drafted, the cases open, the data left. */
  async function summarize(rounds: number, interrupted = false): Promise<DemoSummary> {
    const transfers = await listSince<{ createdAt: string; state: string }>("/api/v2/transfers", startedAt);
    const byState: Record<string, number> = {};
    for (const t of transfers) byState[t.state] = (byState[t.state] ?? 0) + 1;
    const reports = (await listSince<{ createdAt: string; reportNumber: string }>("/api/v2/reports", startedAt)).map((r) => r.reportNumber).reverse();
    const openCases = (await listSince<{ createdAt: string; caseNumber: string; type: string }>("/api/v2/cases?status=open", startedAt)).map((c) => ({ caseNumber: c.caseNumber, type: c.type })).reverse();
    const states = Object.entries(byState).sort((a, b) => b[1] - a[1]).map(([s, k]) => `${s} ${k}`).join(", ");
    log("");
    const roundsText = interrupted ? `stopped during round ${currentRound} (${rounds} complete)` : `${rounds} round${rounds === 1 ? "" : "s"}`;
    log(`Summary: ${roundsText}, ${transfers.length} transfers (${states || "none"})`);
    log(`  suspicion reports drafted: ${reports.length}${reports.length ? ` (${reports.join(", ")}), drafts for the officer to complete and file` : ""}`);
    log(`  cases open: ${openCases.length}${openCases.length ? ` (${openCases.map((c) => `${c.caseNumber} ${c.type}`).join(", ")}), left for the officer` : ""}`);
    if (envFile) log(`Data left behind: ${where} (keys in ${tempData ? "a fresh directory for this run" : "CARAVAN_DB's directory"}: master key in ${masterKeyAt}, the URL in ${envFile})`);
    else log(`Data left behind: ${dbPath} (${tempData ? "a fresh directory for this run" : "CARAVAN_DB"}; master key in ${masterKeyAt})`);
    log(`  serve it again:  ${envFile ? `bun --env-file=${envFile} src/main.ts serve` : `CARAVAN_DB=${dbPath} bun run start`}   (the sandbox peers are gone: transfers through them stay as they are)`);
    log(`  then look:       bun run console -- --url http://127.0.0.1:8080 --key ${key}`);
    if (tempData) log(`  remove it:       rm -r ${dirname(dbPath)}${envFile ? "   (then drop the PostgreSQL database, or empty it, before another demo on it)" : ""}`);
    if (child) {
      const served = (n: DemoNode) => Object.entries(n.served).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ");
      log(`  nodes:           ${nodes.map((n) => `${n.id} at ${n.url} served ${served(n)}`).join("; ")}`);
      log(`  two nodes again: the serve line above, then PORT=8081 CARAVAN_NODE_ID=node-2 with it beside the first (docs/operations.md, Running several nodes)`);
    }
    return { rounds, transfers: transfers.length, byState, reports, openCases, dbPath, where };
  }

  let stopped = false;
  let n = 0;
  let roundsDone = 0;
  let currentRound = 0;
  let summary: DemoSummary | undefined;
  const startedAt = new Date(service.clock()).toISOString();
  const followers = new Set<Promise<void>>();
  const track = (p: Promise<void>, what: string) => {
    const q = p.catch((e) => log(`${what} failed: ${(e as Error).message}`)).finally(() => followers.delete(q));
    followers.add(q);
  };
  const done = (async (): Promise<DemoSummary | undefined> => {
    for (let round = 1; !stopped && (o.count === undefined || round <= o.count); round++) {
      currentRound = round;
      log("");
      log(`Round ${round}${o.count === undefined ? "" : ` of ${o.count}`}: ${plans.length} transfers out, then four in`);
      for (const plan of plans) {
        if (stopped) break;
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
        const id = r.body?.data?.id as string | undefined;
        log(`transfer ${id ?? "-"} ${plan.amount} ETH: ${r.status} ${r.body?.data?.state ?? r.body?.code} — ${plan.what}${at(r)}`);
        if (r.status === 202 && id)
          track(plan.preferredProtocol === "provider_a" ? followA(id) : plan.preferredProtocol === "provider_e" ? followE(id, plan.cdd === true) : plan.preferredProtocol === "provider_d" ? followD(id) : follow(id, plan), `transfer ${id}`);
        await sleep(o.intervalMs ?? 3000);
      }
      if (stopped) break;
      await incoming(round - 1).catch((e) => log(`incoming failed: ${(e as Error).message}`));
      track(incomingA(round - 1), "incoming via provider_a");
      track(incomingE(round - 1), "incoming via provider_e");
      track(incomingD(round - 1), "incoming via provider_d");
      // The round's lines stay together: every transfer of it followed to its end before the next round begins.
      while (followers.size > 0) await Promise.allSettled([...followers]);
      roundsDone = round;
    }
    // Every transfer followed to its end (or its wait given up, said so), then the summary.
    while (followers.size > 0) await Promise.allSettled([...followers]);
    if (stopped) return undefined;
    summary = await summarize(roundsDone);
    return summary;
  })();

  return {
    service,
    peer,
    peerA,
    bridgeE,
    peerD,
    screening: { c: screeningC, d: screeningD },
    receiver,
    received,
    apiKey: key,
    dbPath,
    envFile,
    nodes,
    done,
    async stop() {
      stopped = true;
      await done.catch(() => undefined);
      if (!summary) await summarize(roundsDone, true).catch(() => undefined);
      // Each node leaves the service (its leases and its registry row freed at once): the child first, on SIGTERM.
      if (child) {
        const code = await child.stop();
        log(`Node ${other.id} (process ${child.pid}) stopped: exit ${code}; node ${first.id} (this process) stops now`);
      }
      await service.stop();
      await stopPeers();
    },
  };
}

/** The demo's node IDs with `nodes: 2`: this process's, then the child's. */
const NODE_IDS = ["demo-1", "demo-2"] as const;

/** The create routes: with two nodes they go to the first node, every other request to the second. */
const CREATES: ReadonlySet<string> = new Set(["/api/v2/transfers", "/api/v2/customers", "/api/v2/wallets"]);

interface NodeProcess {
  url: string;
  pid: number;
  /** Its output so far (the server's log lines at warn and the listening line). */
  output(): string;
  /** SIGTERM, then its exit code once it has stopped (a clean stop leaves the service: 0). */
  stop(): Promise<number | null>;
}

/**
 * `caravan serve` as a process of its own with `env` (PORT=0: the address it prints is read back): from the checkout
 * `bun --no-env-file src/main.ts serve` (or `deno run -A`), from the single binary the binary itself.
 */
async function startNodeProcess(env: Record<string, string | undefined>): Promise<NodeProcess> {
  const main = join(import.meta.dir, "main.ts");
  const fromSource = existsSync(main);
  const args = !fromSource ? ["serve"] : typeof Bun === "undefined" ? ["run", "-A", main, "serve"] : ["--no-env-file", main, "serve"];
  const proc = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((res) => proc.once("exit", (code) => res(code)));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      rej(new Error(`the second node did not start within 60 s: ${out.trim().slice(-400)}`));
    }, 60_000);
    const look = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout.off("data", look);
        res(m[1]);
      }
    };
    proc.stdout.on("data", look);
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`the second node exited (${code}) before it served: ${out.trim().slice(-400)}`));
    });
  });
  return {
    url,
    pid: proc.pid!,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      return await exited;
    },
  };
}
