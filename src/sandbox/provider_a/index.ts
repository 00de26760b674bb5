// A sandbox provider_a network (Notabene Transact v2 style): a real loopback HTTP server with an OAuth token
// endpoint, entity lookup, address discovery, transfers (create, read with decryption, append IVMS101, authorize,
// reject, settle), relationships, member VASPs that authorize, reject, flag or stay silent, and Standard-Webhooks
// signed events back to Caravan's callback URL (at least once; duplicates and out-of-order deliveries on demand).
import { listen } from "../../adapters/server/index.ts";
import type { Person } from "../../domain/ivms101/index.ts";
import { WebhookSender, type Delivery, type Endpoint, type SentMessage } from "./webhooks.ts";

export type { Delivery, SentMessage } from "./webhooks.ts";

export type VaspBehaviour = "authorize" | "reject" | "flag" | "silent";

export interface SandboxVaspA {
  did: string;
  name: string;
  /** What the VASP does with a transfer sent to it once the originator's IVMS101 is appended. */
  behaviour: VaspBehaviour;
  /** Its customers' IVMS101 persons by key. */
  customers: Record<string, Person[]>;
  wallets: { address: string; memo?: string; customer: string }[];
  /** Discovery answers UNCONFIRMED for its addresses. */
  unconfirmed?: boolean;
  /** Discovery names a custodian for its addresses. */
  custodian?: boolean;
  /** Its beneficiary IVMS101 lists another account than the address (PII_ACCOUNT_MISMATCH). */
  wrongAccount?: boolean;
}

export interface CaravanClient {
  did: string;
  name: string;
  clientId: string;
  clientSecret: string;
  /** Caravan's callback URL for this entity and the signing secret. */
  webhookUrl: string;
  webhookSecret: string;
}

export type Route = "token" | "entity" | "discover" | "create" | "get" | "append" | "authorize" | "reject" | "settle" | "relationships";
export type Fault = { kind: "status"; status: number } | { kind: "hang" } | { kind: "dropAnswer" } | { kind: "answer"; body: unknown };

export interface AgentA {
  did: string;
  name: string | null;
  role: string;
  status: "PENDING" | "AUTHORIZED" | "REJECTED";
}

export interface SandboxTx {
  id: string;
  ref: string | null;
  status: string;
  asset: string;
  amount: string;
  originatorAddress: string | null;
  beneficiaryAddress: string;
  memo: string | null;
  agents: AgentA[];
  flags: string[];
  settlement: { id: string } | null;
  ivms101: { originator?: { originatorPersons: Person[]; accountNumber: string[] }; beneficiary?: { beneficiaryPersons: Person[]; accountNumber: string[] } };
  createdAt: string;
  updatedAt: string;
  rejectReason?: string;
}

export interface PeerRequestA {
  method: string;
  path: string;
  route: Route | null;
  status: number;
  clientId: string | null;
  body?: unknown;
}

export interface ProviderAPeerOptions {
  vasps?: SandboxVaspA[];
  /** Caravan's client, registered at start (also: POST /_sandbox/caravan with the same JSON). */
  caravan?: CaravanClient;
  port?: number;
  tokenTtlSeconds?: number;
  now?: () => number;
}

export interface ProviderAPeer {
  /** API origin (`apiUrl`) and OAuth origin (CARAVAN_PROVIDER_A_AUTH_URL) at once. */
  readonly url: string;
  readonly transfers: Map<string, SandboxTx>;
  readonly requests: PeerRequestA[];
  readonly relationships: { did: string; address: string; memo: string | null; asset: string; txId: string }[];
  readonly webhooks: WebhookSender;
  readonly vasps: Map<string, SandboxVaspA>;
  tokensIssued(): number;
  registerCaravan(c: CaravanClient): void;
  addVasp(v: SandboxVaspA): void;
  setFault(route: Route, fault: Fault | null, times?: number): void;
  clearFaults(): void;
  /** Invalidates every issued token (the next call is 401, retried once with a new token). */
  revokeTokens(): void;
  /** A member VASP sends a transfer to Caravan's entity; Caravan gets `notification.transfer.created`. */
  sendIncoming(i: { from: string; to: string; asset: string; amount: string; beneficiaryAddress: string; memo?: string; originatorAddress?: string; originatorPersons: Person[]; beneficiaryPersons?: Person[]; agents?: AgentA[]; originatorAccountNumber?: string[] }): Promise<{ id: string; status: number | null }>;
  /** The counterparty or the network changes a transfer; Caravan gets an event (unless `silent`). */
  update(txId: string, change: Partial<Pick<SandboxTx, "status" | "flags" | "settlement">> & { agent?: { role: string; status: AgentA["status"] }; beneficiaryPersons?: Person[] }, opts?: { silent?: boolean; message?: string }): Promise<number | null>;
  /** Sends an event about a transfer now. */
  notify(txId: string, message?: string): Promise<number | null>;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startProviderAPeer(opts: ProviderAPeerOptions = {}): Promise<ProviderAPeer> {
  const now = opts.now ?? Date.now;
  const ttl = opts.tokenTtlSeconds ?? 3600;
  const vasps = new Map<string, SandboxVaspA>((opts.vasps ?? []).map((v) => [v.did, v]));
  const caravans = new Map<string, CaravanClient>();
  const tokens = new Map<string, { clientId: string; expiresAt: number }>();
  let issued = 0;
  const transfers = new Map<string, SandboxTx>();
  const requests: PeerRequestA[] = [];
  const relationships: ProviderAPeer["relationships"] = [];
  const faults = new Map<Route, { fault: Fault; left: number }>();
  const hung = new Set<() => void>();
  const webhooks = new WebhookSender(now);
  let url = "";

  const iso = () => new Date(now()).toISOString();
  const endpointOf = (did: string): Endpoint | null => {
    const c = caravans.get(did);
    return c ? { url: c.webhookUrl, secret: c.webhookSecret, did } : null;
  };
  const caravanOf = (tx: SandboxTx) => tx.agents.map((a) => caravans.get(a.did)).find((c) => c !== undefined);
  const notify = (tx: SandboxTx, message = "notification.transfer.updated"): Promise<number | null> => {
    const c = caravanOf(tx);
    const e = c ? endpointOf(c.did) : null;
    return e ? webhooks.send(e, message, tx.id) : Promise.resolve(null);
  };
  const agent = (tx: SandboxTx, role: string) => tx.agents.find((a) => a.role === role);
  const recompute = (tx: SandboxTx) => {
    tx.updatedAt = iso();
    if (tx.status !== "PENDING" && tx.status !== "AUTHORIZED") return;
    if (tx.agents.some((a) => a.status === "REJECTED")) tx.status = "REJECTED";
    else if (tx.agents.filter((a) => a.role === "ORIGINATOR" || a.role === "BENEFICIARY").every((a) => a.status === "AUTHORIZED")) tx.status = "AUTHORIZED";
  };

  const findWallet = (address: string, memo: string | null) => {
    for (const v of vasps.values()) {
      const w = v.wallets.find((x) => x.address.toLowerCase() === address.toLowerCase() && (x.memo ?? null) === memo);
      if (w) return { vasp: v, wallet: w };
    }
    return null;
  };

  /** A member VASP's answer to a transfer sent to it, once the originator's data is there. */
  const counterpartyActs = (tx: SandboxTx) => {
    const ben = agent(tx, "BENEFICIARY");
    const vasp = ben ? vasps.get(ben.did) : undefined;
    if (!vasp || vasp.behaviour === "silent" || ben!.status !== "PENDING") return;
    setTimeout(() => {
      const found = findWallet(tx.beneficiaryAddress, tx.memo);
      const persons = found && found.vasp === vasp ? vasp.customers[found.wallet.customer] ?? [] : [];
      const account = vasp.wrongAccount ? "0x0000000000000000000000000000000000000001" : tx.memo ? `${tx.beneficiaryAddress}:${tx.memo}` : tx.beneficiaryAddress;
      if (vasp.behaviour === "reject" || persons.length === 0) {
        ben!.status = "REJECTED";
        tx.rejectReason = "COMPLIANCE_POLICIES";
      } else {
        tx.ivms101.beneficiary = { beneficiaryPersons: persons, accountNumber: [account] };
        if (vasp.behaviour === "flag") tx.status = "FLAGGED";
        else ben!.status = "AUTHORIZED";
      }
      recompute(tx);
      void notify(tx);
    }, 20);
  };

  /** An originating member VASP confirms once Caravan (the beneficiary) authorized. */
  const originatorActs = (tx: SandboxTx) => {
    const org = agent(tx, "ORIGINATOR");
    const vasp = org ? vasps.get(org.did) : undefined;
    if (!vasp || vasp.behaviour === "silent" || org!.status !== "PENDING") return;
    setTimeout(() => {
      if (vasp.behaviour === "reject") org!.status = "REJECTED";
      else if (vasp.behaviour === "flag") tx.status = "FLAGGED";
      else org!.status = "AUTHORIZED";
      recompute(tx);
      void notify(tx);
    }, 20);
  };

  const takeFault = (route: Route): Fault | null => {
    const f = faults.get(route);
    if (!f) return null;
    if (--f.left <= 0) faults.delete(route);
    return f.fault;
  };

  const view = (tx: SandboxTx, decrypt: boolean) => {
    const { rejectReason: _r, ...rest } = tx;
    return decrypt ? rest : { ...rest, ivms101: {} };
  };

  async function handle(req: Request): Promise<Response> {
    const u = new URL(req.url);
    const path = u.pathname;
    const method = req.method;
    const log: PeerRequestA = { method, path: path + u.search, route: null, status: 0, clientId: null };
    requests.push(log);
    const answer = (status: number, body: unknown) => {
      log.status = status;
      return json(status, body);
    };
    let body: Record<string, unknown> = {};
    if (method === "POST") {
      try {
        body = (await req.json()) as Record<string, unknown>;
      } catch {
        return answer(400, { error: "invalid json" });
      }
      log.body = body;
    }
    if (method === "POST" && path === "/_sandbox/caravan") {
      const c = body as unknown as CaravanClient;
      if (typeof c.did !== "string" || typeof c.clientId !== "string" || typeof c.clientSecret !== "string" || typeof c.webhookUrl !== "string" || typeof c.webhookSecret !== "string") return answer(400, { error: "did, name, clientId, clientSecret, webhookUrl, webhookSecret" });
      caravans.set(c.did, { ...c, name: typeof c.name === "string" ? c.name : c.did });
      return answer(200, { registered: c.did });
    }
    const route = routeOf(method, path);
    log.route = route?.route ?? null;
    if (!route) return answer(404, { error: "not found" });
    const fault = takeFault(route.route);
    if (fault?.kind === "status") return answer(fault.status, { error: "fault" });
    if (fault?.kind === "answer") return answer(200, fault.body);
    if (fault?.kind === "hang") {
      log.status = -1;
      return new Promise<Response>((resolve) => hung.add(() => resolve(json(503, {}))));
    }

    if (route.route === "token") {
      const c = [...caravans.values()].find((x) => x.clientId === body.client_id && x.clientSecret === body.client_secret);
      if (!c || body.grant_type !== "client_credentials") return answer(401, { error: "access_denied" });
      if (body.audience !== url) return answer(403, { error: "invalid audience" });
      const token = `sbx_${crypto.randomUUID()}`;
      tokens.set(token, { clientId: c.clientId, expiresAt: now() + ttl * 1000 });
      issued++;
      log.clientId = c.clientId;
      return answer(200, { access_token: token, expires_in: ttl, token_type: "Bearer" });
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    const t = bearer ? tokens.get(bearer) : undefined;
    if (!t || t.expiresAt <= now()) return answer(401, { error: "unauthorized" });
    const caller = [...caravans.values()].find((c) => c.clientId === t.clientId)!;
    log.clientId = caller.clientId;
    if (route.route === "entity") {
      const did = route.did;
      const c = caravans.get(did);
      const v = vasps.get(did);
      if (!c && !v) return answer(404, { error: "entity not found" });
      return answer(200, { did, name: c?.name ?? v!.name });
    }
    if (route.did !== caller.did) return answer(403, { error: "forbidden for this entity" });
    if (fault?.kind === "dropAnswer") {
      // The request is carried out, the answer lost (Part 3: submission_unknown).
      await act(route, body, caller, u);
      return answer(502, { error: "bad gateway" });
    }
    const r = await act(route, body, caller, u);
    return answer(r.status, r.body);
  }

  async function act(route: Matched, body: Record<string, unknown>, caller: CaravanClient, u: URL): Promise<{ status: number; body: unknown }> {
    const tx = route.tx ? transfers.get(route.tx) : undefined;
    switch (route.route) {
      case "discover": {
        const asset = u.searchParams.get("asset") ?? "";
        const account = u.searchParams.get("address") ?? "";
        const i = account.indexOf(":");
        const address = i >= 0 ? account.slice(0, i) : account;
        const memo = i >= 0 ? account.slice(i + 1) : null;
        const found = findWallet(address, memo);
        if (!found) return { status: 200, body: { address: account, asset, status: "NOT_FOUND", owner: null, custodian: null } };
        const v = found.vasp;
        return {
          status: 200,
          body: { address: account, asset, status: v.unconfirmed ? "UNCONFIRMED" : "CONFIRMED", owner: { did: v.did, name: v.name }, custodian: v.custodian ? { did: "did:web:custodian.example", name: "Custodian" } : null },
        };
      }
      case "create": {
        const agents = Array.isArray(body.agents) ? (body.agents as { did: string; role: string }[]) : [];
        const ben = agents.find((a) => a.role === "BENEFICIARY");
        if (!ben || typeof body.amount !== "string" || typeof body.asset !== "string" || typeof body.beneficiaryAddress !== "string") return { status: 400, body: { error: "invalid transfer" } };
        const id = `tx_${crypto.randomUUID()}`;
        const created: SandboxTx = {
          id,
          ref: typeof body.ref === "string" ? body.ref : null,
          status: "PENDING",
          asset: body.asset,
          amount: body.amount,
          originatorAddress: typeof body.originatorAddress === "string" ? body.originatorAddress : null,
          beneficiaryAddress: body.beneficiaryAddress,
          memo: typeof body.memo === "string" ? body.memo : null,
          agents: [
            { did: caller.did, name: caller.name, role: "ORIGINATOR", status: "PENDING" },
            { did: ben.did, name: vasps.get(ben.did)?.name ?? null, role: "BENEFICIARY", status: "PENDING" },
          ],
          flags: [],
          settlement: null,
          ivms101: {},
          createdAt: iso(),
          updatedAt: iso(),
        };
        transfers.set(id, created);
        return { status: 201, body: view(created, true) };
      }
      case "get":
        return tx ? { status: 200, body: view(tx, u.searchParams.get("decrypt") === "true") } : { status: 404, body: { error: "not found" } };
      case "append": {
        if (!tx) return { status: 404, body: { error: "not found" } };
        const ivms = (body.ivms101 ?? {}) as SandboxTx["ivms101"];
        if (ivms.originator) tx.ivms101.originator = ivms.originator;
        if (ivms.beneficiary) tx.ivms101.beneficiary = ivms.beneficiary;
        tx.updatedAt = iso();
        if (ivms.originator && agent(tx, "ORIGINATOR")?.did === caller.did) counterpartyActs(tx);
        return { status: 200, body: view(tx, true) };
      }
      case "authorize": {
        if (!tx) return { status: 404, body: { error: "not found" } };
        const mine = tx.agents.find((a) => a.did === caller.did);
        if (!mine || tx.status === "REJECTED") return { status: 409, body: { error: "cannot authorize" } };
        if (mine.status === "PENDING") mine.status = "AUTHORIZED";
        recompute(tx);
        if (mine.role === "BENEFICIARY") originatorActs(tx);
        return { status: 200, body: view(tx, true) };
      }
      case "reject": {
        if (!tx) return { status: 404, body: { error: "not found" } };
        const mine = tx.agents.find((a) => a.did === caller.did);
        if (!mine || tx.settlement) return { status: 409, body: { error: "cannot reject" } };
        if (body.reason !== "SANCTION_SCREENING" && body.reason !== "COMPLIANCE_POLICIES") return { status: 400, body: { error: "invalid reason" } };
        mine.status = "REJECTED";
        tx.rejectReason = body.reason;
        recompute(tx);
        return { status: 200, body: view(tx, true) };
      }
      case "settle": {
        if (!tx) return { status: 404, body: { error: "not found" } };
        if (typeof body.settlementId !== "string") return { status: 400, body: { error: "settlementId required" } };
        if (tx.settlement && tx.settlement.id !== body.settlementId) return { status: 409, body: { error: "already settled" } };
        if (tx.status !== "AUTHORIZED" && !tx.settlement) return { status: 409, body: { error: "not authorized" } };
        tx.settlement = { id: body.settlementId };
        tx.status = "SETTLED";
        tx.updatedAt = iso();
        return { status: 200, body: view(tx, true) };
      }
      case "relationships": {
        relationships.push({ did: caller.did, address: String(body.address), memo: typeof body.memo === "string" ? body.memo : null, asset: String(body.asset), txId: String(body.txId) });
        return { status: 201, body: { status: "CONFIRMED" } };
      }
      default:
        return { status: 404, body: { error: "not found" } };
    }
  }

  if (opts.caravan) caravans.set(opts.caravan.did, opts.caravan);
  const server = await listen(handle, { hostname: "127.0.0.1", port: opts.port ?? 0 });
  url = `http://127.0.0.1:${server.port}`;

  return {
    url,
    transfers,
    requests,
    relationships,
    webhooks,
    vasps,
    tokensIssued: () => issued,
    registerCaravan: (c) => void caravans.set(c.did, c),
    addVasp: (v) => void vasps.set(v.did, v),
    setFault(route, fault, times = Infinity) {
      if (fault === null) faults.delete(route);
      else faults.set(route, { fault, left: times });
    },
    clearFaults: () => faults.clear(),
    revokeTokens: () => tokens.clear(),
    async sendIncoming(i) {
      const id = `tx_${crypto.randomUUID()}`;
      const from = vasps.get(i.from);
      const tx: SandboxTx = {
        id,
        ref: `ref-${id.slice(3, 11)}`,
        status: "PENDING",
        asset: i.asset,
        amount: i.amount,
        originatorAddress: i.originatorAddress ?? null,
        beneficiaryAddress: i.beneficiaryAddress,
        memo: i.memo ?? null,
        agents: i.agents ?? [
          { did: i.from, name: from?.name ?? null, role: "ORIGINATOR", status: "PENDING" },
          { did: i.to, name: caravans.get(i.to)?.name ?? null, role: "BENEFICIARY", status: "PENDING" },
        ],
        flags: [],
        settlement: null,
        ivms101: {
          originator: { originatorPersons: i.originatorPersons, accountNumber: i.originatorAccountNumber ?? (i.originatorAddress ? [i.originatorAddress] : []) },
          ...(i.beneficiaryPersons ? { beneficiary: { beneficiaryPersons: i.beneficiaryPersons, accountNumber: [i.memo ? `${i.beneficiaryAddress}:${i.memo}` : i.beneficiaryAddress] } } : {}),
        },
        createdAt: iso(),
        updatedAt: iso(),
      };
      transfers.set(id, tx);
      const status = await notify(tx, "notification.transfer.created");
      return { id, status };
    },
    update(txId, change, o = {}) {
      const tx = transfers.get(txId);
      if (!tx) throw new Error(`no transfer ${txId}`);
      if (change.status !== undefined) tx.status = change.status;
      if (change.flags !== undefined) tx.flags = change.flags;
      if (change.settlement !== undefined) tx.settlement = change.settlement;
      if (change.agent) {
        const a = agent(tx, change.agent.role);
        if (a) a.status = change.agent.status;
      }
      if (change.beneficiaryPersons) tx.ivms101.beneficiary = { beneficiaryPersons: change.beneficiaryPersons, accountNumber: tx.ivms101.beneficiary?.accountNumber ?? [tx.beneficiaryAddress] };
      recompute(tx);
      return o.silent ? Promise.resolve(null) : notify(tx, o.message);
    },
    notify(txId, message) {
      const tx = transfers.get(txId);
      if (!tx) throw new Error(`no transfer ${txId}`);
      return notify(tx, message);
    },
    async stop() {
      webhooks.stop();
      for (const release of hung) release();
      hung.clear();
      await webhooks.drain();
      await server.stop();
    },
  };
}

interface Matched {
  route: Route;
  did: string;
  tx?: string;
}

function routeOf(method: string, path: string): Matched | null {
  if (method === "POST" && path === "/oauth/token") return { route: "token", did: "" };
  const m = /^\/entities\/([^/]+)(\/.*)?$/.exec(path);
  if (!m) return null;
  const did = decodeURIComponent(m[1]);
  const rest = m[2] ?? "";
  if (method === "GET" && rest === "") return { route: "entity", did };
  if (method === "GET" && rest === "/addresses/discover") return { route: "discover", did };
  if (method === "POST" && rest === "/tx") return { route: "create", did };
  if (method === "POST" && rest === "/relationships") return { route: "relationships", did };
  const t = /^\/tx\/([^/]+)(?:\/(append|authorize|reject|settle))?$/.exec(rest);
  if (!t) return null;
  const tx = decodeURIComponent(t[1]);
  if (!t[2]) return method === "GET" ? { route: "get", did, tx } : null;
  return method === "POST" ? { route: t[2] as Route, did, tx } : null;
}

/** Ready-made counterparties for the demo and `caravan sandbox` (addresses on ethereum, none of them known to the
 * provider_b sandbox network, so the demo's provider_b transfers are not carried here). */
export const DEMO_VASPS: SandboxVaspA[] = [
  { did: "did:web:harbour.example", name: "Harbour Exchange", behaviour: "authorize", customers: { ruth: [naturalPerson("Ruth", "Harbour", "DE")] }, wallets: [{ address: "0xb93a8603fcfaC8b88a6185A790f681Be1d9B5007", customer: "ruth" }] },
  { did: "did:web:lighthouse.example", name: "Lighthouse Custody", behaviour: "flag", customers: { ola: [naturalPerson("Ola", "Nordmann", "NO")] }, wallets: [{ address: "0xBFebA194365C06bcAA4Ef014d57A0Bc051cB9214", customer: "ola" }] },
  { did: "did:web:reef.example", name: "Reef Markets", behaviour: "reject", customers: { sam: [naturalPerson("Sam", "Reef", "AU")] }, wallets: [{ address: "0x894504D79E7f004c64D61BC450e76D6F5c40673A", customer: "sam" }] },
  { did: "did:web:fog.example", name: "Fog Wallets", behaviour: "silent", customers: { kim: [naturalPerson("Kim", "Fog", "KR")] }, wallets: [{ address: "0x99d4Fbedc53404255bD3d8be5E80cBf389bA6fE5", customer: "kim" }] },
];

/** The demo's counterparties by role: one that authorizes (and sends to Caravan), one the network flags, one that rejects, one silent. */
export const DEMO_A = { harbour: DEMO_VASPS[0], lighthouse: DEMO_VASPS[1], reef: DEMO_VASPS[2], fog: DEMO_VASPS[3] } as const;

/** A demo counterparty's first wallet and the IVMS101 persons of its customer there. */
export function demoWallet(v: SandboxVaspA): { address: string; persons: Person[] } {
  const w = v.wallets[0];
  return { address: w.address, persons: v.customers[w.customer] ?? [] };
}

/** The sandbox's default client for Caravan (its settings: apiUrl = the peer's URL, and these). */
export const SANDBOX_CARAVAN = { did: "did:web:caravan.sandbox", name: "Caravan Sandbox", clientId: "caravan-sandbox", clientSecret: "sandbox-client-secret", webhookSecret: "whsec_c2FuZGJveC13ZWJob29rLXNpZ25pbmctc2VjcmV0IQ==" };

function naturalPerson(given: string, family: string, country: string): Person {
  return { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] }, countryOfResidence: country as never } };
}
