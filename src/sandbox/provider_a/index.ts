// A sandbox provider_a network, written as Notabene Transact v2 documents itself (its published integration
// reference) on Notabene's own libraries, and sharing no code with the service: a loopback HTTP server with the OAuth
// token endpoint, entity lookup, address discovery, transfers in TAP's shape (`{ "transfer": { ... } }` with TAIP-3
// parties and TAIP-5 agents; create, read with decryption, append IVMS101 2023, authorize, reject, settle),
// relationships, member VASPs that authorize, reject, get flagged or stay silent, and Standard-Webhooks-signed events
// back to Caravan's callback URL (at least once; duplicates and out-of-order deliveries on demand).
import { AgentSchema, AmountSchema, CAIP10Schema, CAIP19Schema, IRISchema } from "@taprsvp/types";
import type { Person } from "../../domain/ivms101/index.ts";
import { WebhookSender, type Endpoint } from "./webhooks.ts";
import { appendProblem, personsOf, sideOf, type Edition, type StoredSide } from "./pii.ts";
import { listen } from "../serve.ts";

export type { Delivery, SentMessage } from "./webhooks.ts";

export type VaspBehaviour = "authorize" | "reject" | "flag" | "silent";

export interface SandboxVaspA {
  did: string;
  name: string;
  /** What the VASP does with a transfer sent to it once the originator's IVMS101 is appended. */
  behaviour: VaspBehaviour;
  /** Its customers' IVMS101 persons by key (written in the 2020 spelling; sent in `edition`). */
  customers: Record<string, Person[]>;
  wallets: { address: string; memo?: string; customer: string }[];
  /** Discovery answers UNCONFIRMED for its addresses. */
  unconfirmed?: boolean;
  /** Discovery names a custodian for its addresses. */
  custodian?: boolean;
  /** Its beneficiary IVMS101 lists another account than the address (PII_ACCOUNT_MISMATCH). */
  wrongAccount?: boolean;
  /** The IVMS101 edition it writes (Notabene's package default: 2023). */
  edition?: Edition;
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

export type Route = "token" | "entity" | "discover" | "create" | "get" | "append" | "authorize" | "reject" | "settle" | "checks" | "relationships";
/** `answer`: the route answers this body (status 200 unless given) without doing anything. */
export type Fault = { kind: "status"; status: number } | { kind: "hang" } | { kind: "dropAnswer" } | { kind: "answer"; body: unknown; status?: number };

/** A TAIP-5 agent as Notabene lists it: roles `VASP`, `Custodian`, `SettlementAddress`, `SourceAddress`, `Gateway`, `Unknown`. */
export interface TapAgent {
  "@id": string;
  for?: string;
  role: string;
  /** Notabene's agent statuses: PROCESSING, AUTHORIZED, REJECTED, SETTLED, FAILED, REPLACED. */
  status?: string;
  name?: string;
  memoTag?: string;
}

/** A transfer as the network keeps it (TAP's shape; personal data per side, as appended). */
export interface SandboxTx {
  "@id": string;
  id: string;
  ref: string;
  status: string;
  initiator: string;
  asset: string;
  amount: string;
  originator: { "@id": string };
  beneficiary: { "@id": string };
  agents: TapAgent[];
  memoTag?: string;
  settlementId?: string;
  flags: string[];
  createdTime: string;
  updatedTime: string;
  pii: { originator?: StoredSide; beneficiary?: StoredSide };
  /** Transfer checks the beneficiary VASP confirmed (`REQUIRE_BENEFICIARY_NAME_MATCHING`, `REQUIRE_INTERNAL_CHECKS`). */
  checks: string[];
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

export interface Relationship {
  entity: string;
  from: string;
  to: string;
  /** The address of `from` (a `did:pkh:` CAIP-10 account), bare. */
  address: string | null;
}

export interface ProviderAPeerOptions {
  vasps?: SandboxVaspA[];
  /** Caravan's client, registered at start (also: POST /_sandbox/caravan with the same JSON). */
  caravan?: CaravanClient;
  port?: number;
  tokenTtlSeconds?: number;
  now?: () => number;
}

export type Side = "originator" | "beneficiary";

export interface IncomingA {
  from: string;
  to: string;
  asset: string;
  amount: string;
  beneficiaryAddress: string;
  memo?: string;
  originatorAddress?: string;
  originatorPersons: Person[];
  beneficiaryPersons?: Person[];
  originatorAccountNumber?: string[];
  /** Agents added to the two VASPs and two addresses (a custodian, a gateway…). */
  extraAgents?: TapAgent[];
  /** The edition the originating VASP writes (default: the VASP's, else 2023). */
  edition?: Edition;
}

export interface ProviderAPeer {
  /** API origin (`apiUrl`) and OAuth origin (CARAVAN_PROVIDER_A_AUTH_URL) at once. */
  readonly url: string;
  readonly transfers: Map<string, SandboxTx>;
  readonly requests: PeerRequestA[];
  readonly relationships: Relationship[];
  readonly webhooks: WebhookSender;
  readonly vasps: Map<string, SandboxVaspA>;
  tokensIssued(): number;
  registerCaravan(c: CaravanClient): void;
  addVasp(v: SandboxVaspA): void;
  setFault(route: Route, fault: Fault | null, times?: number): void;
  clearFaults(): void;
  /** Invalidates every issued token (the next call is 401, retried once with a new token). */
  revokeTokens(): void;
  /** The VASP agent acting for a party of a transfer. */
  vaspAgent(txId: string, side: Side): TapAgent | undefined;
  /** A side's persons as the network holds them, in the 2020 spelling (converted by the `ivms101` package); null when none. */
  persons(txId: string, side: Side): Person[] | null;
  /** A side's account numbers as appended. */
  accounts(txId: string, side: Side): string[] | null;
  /** A member VASP sends a transfer to Caravan's entity; Caravan gets `notification.transferCreated`. */
  sendIncoming(i: IncomingA): Promise<{ id: string; status: number | null }>;
  /** The counterparty or the network changes a transfer; Caravan gets an event (unless `silent`). */
  update(txId: string, change: { status?: string; flags?: string[]; settlement?: { id: string } | null; agent?: { role: "ORIGINATOR" | "BENEFICIARY"; status: string }; originatorPersons?: Person[]; beneficiaryPersons?: Person[] }, opts?: { silent?: boolean; message?: string }): Promise<number | null>;
  /** Sends an event about a transfer now. */
  notify(txId: string, message?: string): Promise<number | null>;
  stop(): Promise<void>;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
/** Notabene's error body: `{ error, details? }`. */
const error = (status: number, message: string, details?: string) => json(status, details === undefined ? { error: message } : { error: message, details });

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Notabene's validations, from its API reference. */
const REF = /^[a-zA-Z0-9_-]{1,64}$/;
const DID = /^did:[a-z0-9]+:\S{1,250}$/;
const ROLES = ["VASP", "Custodian", "SettlementAddress", "SourceAddress", "Gateway", "Unknown"];
const REJECT_REASONS = [
  "COUNTERPARTY_RISK", "COUNTERPARTY_DUE_DILIGENCE", "BLOCKCHAIN_RISK_SCORE", "SANCTION_SCREENING", "ASSET_TYPE", "SUSPICIOUS_TRANSACTION",
  "COUNTERPARTY_POLICIES", "COUNTERPARTY_REJECTED", "COUNTERPARTY_NO_RESPONSE", "CANCELED_BY_INITIATOR", "REMOVED_FROM_TRANSFER",
  "TRANSFER_PARTICIPANT", "SOURCE_ADDRESS", "BENEFICIARY_ADDRESS", "BENEFICIARY_NOT_FOUND", "ORIGINATOR_REJECT_OUTGOING",
  "BENEFICIARY_REJECT_INCOMING", "COMPLIANCE_POLICIES", "OTHER",
];
/** A create body's agent: TAP's TAIP-5 agent, its `@id` and `for` any IRI (addresses are `did:pkh:` CAIP-10 DIDs). */
const AgentIn = AgentSchema.pick({ role: true, name: true }).extend({ "@id": IRISchema, for: IRISchema.optional(), memoTag: AgentSchema.shape.role });

const chainOf = (asset: string) => asset.split("/")[0];
const pkh = (asset: string, address: string) => `did:pkh:${chainOf(asset)}:${address}`;
/** A `did:pkh:` (or bare) CAIP-10 account's address. */
function addressOf(v: string): string | null {
  const caip10 = v.startsWith("did:pkh:") ? v.slice(8) : v;
  return CAIP10Schema.safeParse(caip10).success ? caip10.slice(caip10.lastIndexOf(":") + 1) : null;
}

export async function startProviderAPeer(opts: ProviderAPeerOptions = {}): Promise<ProviderAPeer> {
  const now = opts.now ?? Date.now;
  const ttl = opts.tokenTtlSeconds ?? 3600;
  const vasps = new Map<string, SandboxVaspA>((opts.vasps ?? []).map((v) => [v.did, v]));
  const caravans = new Map<string, CaravanClient>();
  const tokens = new Map<string, { clientId: string; expiresAt: number }>();
  let issued = 0;
  const transfers = new Map<string, SandboxTx>();
  const requests: PeerRequestA[] = [];
  const relationships: Relationship[] = [];
  const faults = new Map<Route, { fault: Fault; left: number }>();
  const hung = new Set<() => void>();
  const webhooks = new WebhookSender(now);
  let url = "";

  const iso = () => new Date(now()).toISOString();
  const caravanOf = (tx: SandboxTx) => tx.agents.filter((a) => a.role === "VASP").map((a) => caravans.get(a["@id"])).find((c) => c !== undefined);
  const notify = (tx: SandboxTx, message = "notification.transferStatusChanged", extra: Rec = {}): Promise<number | null> => {
    const c = caravanOf(tx);
    const e: Endpoint | null = c ? { url: c.webhookUrl, secret: c.webhookSecret, did: c.did } : null;
    return e ? webhooks.send(e, message, tx.id, extra) : Promise.resolve(null);
  };
  const vaspFor = (tx: SandboxTx, side: Side) => tx.agents.find((a) => a.role === "VASP" && a.for === tx[side]["@id"]);
  const settlementAddress = (tx: SandboxTx) => {
    const a = tx.agents.find((x) => x.role === "SettlementAddress");
    return a ? addressOf(a["@id"]) : null;
  };
  /** Both VASPs authorized → AUTHORIZED; one rejected → REJECTED (while the transfer is still open). */
  const recompute = (tx: SandboxTx) => {
    tx.updatedTime = iso();
    if (tx.status !== "PENDING" && tx.status !== "AUTHORIZED") return;
    const vs = [vaspFor(tx, "originator"), vaspFor(tx, "beneficiary")];
    if (vs.some((a) => a?.status === "REJECTED")) tx.status = "REJECTED";
    else if (vs.every((a) => a?.status === "AUTHORIZED")) tx.status = "AUTHORIZED";
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
    const ben = vaspFor(tx, "beneficiary");
    const vasp = ben ? vasps.get(ben["@id"]) : undefined;
    if (!vasp || vasp.behaviour === "silent" || (ben!.status ?? "PROCESSING") !== "PROCESSING") return;
    setTimeout(() => {
      const address = settlementAddress(tx) ?? "";
      const memo = tx.memoTag ?? null;
      const found = findWallet(address, memo);
      const persons = found && found.vasp === vasp ? vasp.customers[found.wallet.customer] ?? [] : [];
      // Account numbers as CAIP-10 accounts (`did:pkh:`), as Notabene's guide writes them.
      const account = vasp.wrongAccount ? pkh(tx.asset, "0x0000000000000000000000000000000000000001") : memo ? `${address}:${memo}` : pkh(tx.asset, address);
      if (vasp.behaviour === "reject" || persons.length === 0) {
        ben!.status = "REJECTED";
        tx.rejectReason = "BENEFICIARY_NOT_FOUND";
      } else {
        tx.pii.beneficiary = sideOf("beneficiary", persons, [account], vasp.edition ?? "2023");
        if (vasp.behaviour === "flag") tx.status = "FLAGGED";
        else ben!.status = "AUTHORIZED";
      }
      const before = tx.status;
      recompute(tx);
      void notify(tx, tx.status !== before || tx.status === "FLAGGED" ? "notification.transferStatusChanged" : "notification.transferAgentStatusChanged", { agentID: ben!["@id"], toStatus: ben!.status });
    }, 20);
  };

  /** An originating member VASP confirms once Caravan (the beneficiary) authorized. */
  const originatorActs = (tx: SandboxTx) => {
    const org = vaspFor(tx, "originator");
    const vasp = org ? vasps.get(org["@id"]) : undefined;
    if (!vasp || vasp.behaviour === "silent" || (org!.status ?? "PROCESSING") !== "PROCESSING") return;
    setTimeout(() => {
      if (vasp.behaviour === "reject") org!.status = "REJECTED";
      else if (vasp.behaviour === "flag") tx.status = "FLAGGED";
      else org!.status = "AUTHORIZED";
      recompute(tx);
      void notify(tx, "notification.transferStatusChanged", { toStatus: tx.status });
    }, 20);
  };

  const takeFault = (route: Route): Fault | null => {
    const f = faults.get(route);
    if (!f) return null;
    if (--f.left <= 0) faults.delete(route);
    return f.fault;
  };

  /** The transfer as the API answers it to `viewer`; with `decrypt`, each party carries its IVMS101 (persons and accounts). */
  const view = (tx: SandboxTx, viewer: string, decrypt: boolean) => {
    const { pii, rejectReason: _r, checks: _c, ...rest } = tx;
    const party = (side: Side) => ({ ...tx[side], ...(decrypt && pii[side] ? structuredClone(pii[side]) : {}) });
    return {
      transfer: {
        ...structuredClone(rest),
        direction: tx.initiator === viewer ? "OUTGOING" : "INCOMING",
        transactionType: "TRANSFER",
        isTravelRule: true,
        originator: party("originator"),
        beneficiary: party("beneficiary"),
        ...(tx.settlementId ? { settledTime: tx.updatedTime } : {}),
      },
    };
  };

  async function handle(req: Request): Promise<Response> {
    const u = new URL(req.url);
    const path = u.pathname;
    const method = req.method;
    const log: PeerRequestA = { method, path: path + u.search, route: null, status: 0, clientId: null };
    requests.push(log);
    const answer = (r: Response) => {
      log.status = r.status;
      return r;
    };
    let body: Rec = {};
    if (method === "POST") {
      try {
        const parsed = await req.json();
        if (!isRec(parsed)) return answer(error(400, "Bad Request", "body must be a JSON object"));
        body = parsed;
      } catch {
        return answer(error(400, "Bad Request", "invalid JSON"));
      }
      log.body = body;
    }
    if (method === "POST" && path === "/_sandbox/caravan") {
      const c = body as unknown as CaravanClient;
      if (typeof c.did !== "string" || typeof c.clientId !== "string" || typeof c.clientSecret !== "string" || typeof c.webhookUrl !== "string" || typeof c.webhookSecret !== "string") return answer(error(400, "did, name, clientId, clientSecret, webhookUrl, webhookSecret"));
      caravans.set(c.did, { ...c, name: typeof c.name === "string" ? c.name : c.did });
      return answer(json(200, { registered: c.did }));
    }
    const route = routeOf(method, path);
    log.route = route?.route ?? null;
    if (!route) return answer(error(404, "Not Found"));
    const fault = takeFault(route.route);
    if (fault?.kind === "status") return answer(error(fault.status, "fault"));
    if (fault?.kind === "answer") return answer(json(fault.status ?? 200, fault.body));
    if (fault?.kind === "hang") {
      log.status = -1;
      return new Promise<Response>((resolve) => hung.add(() => resolve(json(503, {}))));
    }

    if (route.route === "token") {
      const c = [...caravans.values()].find((x) => x.clientId === body.client_id && x.clientSecret === body.client_secret);
      if (!c || body.grant_type !== "client_credentials") return answer(json(401, { error: "access_denied" }));
      if (body.audience !== url) return answer(json(403, { error: "invalid audience" }));
      const token = `sbx_${crypto.randomUUID()}`;
      tokens.set(token, { clientId: c.clientId, expiresAt: now() + ttl * 1000 });
      issued++;
      log.clientId = c.clientId;
      return answer(json(200, { access_token: token, expires_in: ttl, token_type: "Bearer" }));
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    const t = bearer ? tokens.get(bearer) : undefined;
    if (!t || t.expiresAt <= now()) return answer(error(401, "Unauthorized"));
    const caller = [...caravans.values()].find((c) => c.clientId === t.clientId)!;
    log.clientId = caller.clientId;
    if (route.route === "entity") {
      const c = caravans.get(route.did);
      const v = vasps.get(route.did);
      if (!c && !v) return answer(error(404, "Not Found", "entity not found"));
      return answer(json(200, { did: route.did, name: c?.name ?? v!.name }));
    }
    if (route.did !== caller.did) return answer(error(403, "Forbidden", "not this client's entity"));
    if (fault?.kind === "dropAnswer") {
      // The request is carried out, the answer lost (Part 3: submission_unknown).
      act(route, body, caller, u);
      return answer(error(502, "Bad Gateway"));
    }
    return answer(act(route, body, caller, u));
  }

  function act(route: Matched, body: Rec, caller: CaravanClient, u: URL): Response {
    const tx = route.tx ? transfers.get(route.tx) : undefined;
    // A transfer is visible to the entities among its VASP agents only.
    const mine = tx?.agents.find((a) => a.role === "VASP" && a["@id"] === caller.did);
    if (route.tx && (!tx || !mine)) return error(404, "Not Found", "transfer not found");
    switch (route.route) {
      case "discover": {
        const asset = u.searchParams.get("asset") ?? "";
        const account = u.searchParams.get("address") ?? "";
        const i = account.indexOf(":");
        const address = i >= 0 ? account.slice(0, i) : account;
        const memo = i >= 0 ? account.slice(i + 1) : null;
        const found = findWallet(address, memo);
        if (!found) return json(200, { address: account, asset, status: "NOT_FOUND", owner: null, custodian: null });
        const v = found.vasp;
        return json(200, { address: account, asset, status: v.unconfirmed ? "UNCONFIRMED" : "CONFIRMED", owner: { did: v.did, name: v.name }, custodian: v.custodian ? { did: "did:web:custodian.example", name: "Custodian" } : null });
      }
      case "create":
        return create(body, caller);
      case "get":
        return json(200, view(tx!, caller.did, u.searchParams.get("decrypt") === "true"));
      case "append": {
        const problem = appendProblem(body.ivms101);
        if (problem) return error(400, "Bad Request", `invalid IVMS101 2023 at ${problem}`);
        for (const side of ["originator", "beneficiary"] as const) {
          const party = body[side];
          if (party !== undefined && !(isRec(party) && party["@id"] === tx![side]["@id"])) return error(400, "Bad Request", `${side}.@id is not this transfer's ${side}`);
        }
        const ivms = body.ivms101 as Rec;
        if (isRec(ivms.originator)) tx!.pii.originator = structuredClone(ivms.originator);
        if (isRec(ivms.beneficiary)) tx!.pii.beneficiary = structuredClone(ivms.beneficiary);
        tx!.updatedTime = iso();
        if (isRec(ivms.originator) && vaspFor(tx!, "originator")?.["@id"] === caller.did) counterpartyActs(tx!);
        return json(202, { message: "Transfer appended successfully with encrypted PII" });
      }
      case "authorize": {
        if (tx!.status === "REJECTED") return error(409, "Conflict", "transfer is rejected");
        // The beneficiary VASP authorizes once its internal checks are confirmed (Notabene's incoming flow).
        if (mine === vaspFor(tx!, "beneficiary") && !tx!.checks.includes("REQUIRE_INTERNAL_CHECKS")) return error(409, "Conflict", "internal checks not completed");
        if ((mine!.status ?? "PROCESSING") === "PROCESSING") mine!.status = "AUTHORIZED";
        recompute(tx!);
        if (mine === vaspFor(tx!, "beneficiary")) originatorActs(tx!);
        return json(202, { message: "Transfer authorization accepted" });
      }
      case "reject": {
        if (tx!.settlementId) return error(409, "Conflict", "transfer is settled");
        if (typeof body.reason !== "string" || !REJECT_REASONS.includes(body.reason)) return error(400, "Bad Request", "reason must be one of the rejection reasons");
        if (body.reason === "OTHER" && (typeof body.comment !== "string" || !body.comment)) return error(400, "Bad Request", "comment is required when reason is OTHER");
        if (body.comment !== undefined && (typeof body.comment !== "string" || body.comment.length > 500)) return error(400, "Bad Request", "comment: at most 500 characters");
        mine!.status = "REJECTED";
        tx!.rejectReason = body.reason;
        recompute(tx!);
        return json(200, { message: "Transfer rejected successfully" });
      }
      case "settle": {
        if (typeof body.settlementId !== "string" || !body.settlementId || body.settlementId.length > 255) return error(400, "Bad Request", "settlementId (at most 255 characters)");
        if (tx!.settlementId && tx!.settlementId !== body.settlementId) return error(409, "Conflict", "already settled");
        if (tx!.status !== "AUTHORIZED" && !tx!.settlementId) return error(409, "Conflict", "not authorized");
        tx!.settlementId = body.settlementId;
        tx!.status = "SETTLED";
        tx!.updatedTime = iso();
        return json(202, { message: "Transfer settlement accepted" });
      }
      case "checks": {
        if (mine !== vaspFor(tx!, "beneficiary")) return error(403, "Forbidden", "checks are the beneficiary VASP's");
        const type = route.check === "beneficiary-name-matching" ? "REQUIRE_BENEFICIARY_NAME_MATCHING" : "REQUIRE_INTERNAL_CHECKS";
        if (!tx!.checks.includes(type)) tx!.checks.push(type);
        return json(200, { id: crypto.randomUUID(), transferId: tx!.id, entityDid: caller.did, type, status: "COMPLETE", policyData: { confirmedBy: caller.did, confirmedAt: iso() }, createdAt: iso(), updatedAt: iso() });
      }
      case "relationships": {
        if (typeof body.to !== "string" || !DID.test(body.to)) return error(400, "Bad Request", "to: the DID of the target entity");
        if (body.from !== undefined && (typeof body.from !== "string" || !DID.test(body.from))) return error(400, "Bad Request", "from: a DID");
        const from = typeof body.from === "string" ? body.from : "";
        relationships.push({ entity: caller.did, from, to: body.to, address: addressOf(from) });
        return json(201, { relationship: { "@id": crypto.randomUUID(), from, to: body.to, custodian: null, status: "UNCONFIRMED", createdTime: iso() } });
      }
      default:
        return error(404, "Not Found");
    }
  }

  /** `POST /entities/{did}/tx`, validated as the API reference says; the beneficiary VASP found by its settlement address when not named. */
  function create(body: Rec, caller: CaravanClient): Response {
    if (typeof body.ref !== "string" || !REF.test(body.ref)) return error(400, "Bad Request", "ref: 1–64 of [a-zA-Z0-9_-]");
    if ([...transfers.values()].some((x) => x.initiator === caller.did && x.ref === body.ref)) return error(409, "Conflict", "duplicate ref");
    for (const side of ["originator", "beneficiary"] as const) {
      const p = body[side];
      if (!isRec(p) || typeof p["@id"] !== "string" || p["@id"].length < 3 || !DID.test(p["@id"])) return error(400, "Bad Request", `${side}.@id: a DID of 3–255 characters`);
    }
    if (!CAIP19Schema.safeParse(body.asset).success && !(typeof body.asset === "string" && /^[A-Za-z0-9-]{2,20}$/.test(body.asset))) return error(400, "Bad Request", "asset: CAIP-19 or an abbreviation");
    if (!AmountSchema.safeParse(body.amount).success) return error(400, "Bad Request", "amount: a decimal string");
    if (body.memoTag !== undefined && (typeof body.memoTag !== "string" || !/^[\x20-\x7e]{1,28}$/.test(body.memoTag))) return error(400, "Bad Request", "memoTag: 1–28 printable ASCII characters");
    if (!Array.isArray(body.agents) || body.agents.length === 0) return error(400, "Bad Request", "agents: at least one");
    const agents: TapAgent[] = [];
    for (const [i, raw] of body.agents.entries()) {
      const a = AgentIn.safeParse(raw);
      if (!a.success) return error(400, "Bad Request", `agents[${i}]: ${a.error.issues[0]?.path.join(".") ?? "invalid"}`);
      const role = a.data.role ?? "Unknown";
      if (!ROLES.includes(role)) return error(400, "Bad Request", `agents[${i}].role: one of ${ROLES.join(", ")}`);
      agents.push({ "@id": a.data["@id"], ...(a.data.for ? { for: a.data.for } : {}), role, ...(a.data.memoTag ? { memoTag: a.data.memoTag } : {}) });
    }
    const originator = { "@id": (body.originator as Rec)["@id"] as string };
    const beneficiary = { "@id": (body.beneficiary as Rec)["@id"] as string };
    const ours = agents.find((a) => a.role === "VASP" && a["@id"] === caller.did);
    if (!ours || ours.for !== originator["@id"]) return error(400, "Bad Request", "the entity must be the originator's VASP agent");
    const id = crypto.randomUUID();
    const tx: SandboxTx = {
      "@id": id,
      id,
      ref: body.ref,
      status: "PENDING",
      initiator: caller.did,
      asset: body.asset as string,
      amount: body.amount as string,
      originator,
      beneficiary,
      agents,
      ...(typeof body.memoTag === "string" ? { memoTag: body.memoTag } : {}),
      flags: [],
      createdTime: iso(),
      updatedTime: iso(),
      pii: {},
      checks: [],
    };
    // Agent discovery: the beneficiary's VASP from its settlement address when the create did not name one.
    if (!vaspFor(tx, "beneficiary")) {
      const found = findWallet(settlementAddress(tx) ?? "", tx.memoTag ?? null);
      if (!found) return error(400, "Bad Request", "no VASP found for the beneficiary");
      agents.push({ "@id": found.vasp.did, for: beneficiary["@id"], role: "VASP" });
    }
    for (const a of agents) if (a.role === "VASP") a.name = caravans.get(a["@id"])?.name ?? vasps.get(a["@id"])?.name;
    for (const a of agents) if (a.role === "VASP") a.status = "PROCESSING";
    transfers.set(id, tx);
    return json(201, view(tx, caller.did, false));
  }

  if (opts.caravan) caravans.set(opts.caravan.did, opts.caravan);
  const server = await listen(handle, { port: opts.port ?? 0 });
  url = `http://127.0.0.1:${server.port}`;

  const mustGet = (txId: string) => {
    const tx = transfers.get(txId);
    if (!tx) throw new Error(`no transfer ${txId}`);
    return tx;
  };

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
    vaspAgent: (txId, side) => vaspFor(mustGet(txId), side),
    persons: (txId, side) => personsOf(side, mustGet(txId).pii[side]),
    accounts: (txId, side) => {
      const s = mustGet(txId).pii[side];
      return s ? (s.accountNumber as string[]) : null;
    },
    async sendIncoming(i) {
      const id = crypto.randomUUID();
      const from = vasps.get(i.from);
      const edition = i.edition ?? from?.edition ?? "2023";
      const originator = { "@id": i.originatorAddress ? pkh(i.asset, i.originatorAddress) : `${i.from}:customers:${id.slice(0, 8)}` };
      const beneficiary = { "@id": pkh(i.asset, i.beneficiaryAddress) };
      const account = i.memo ? `${i.beneficiaryAddress}:${i.memo}` : i.beneficiaryAddress;
      const tx: SandboxTx = {
        "@id": id,
        id,
        ref: `ref-${id.slice(0, 8)}`,
        status: "PENDING",
        initiator: i.from,
        asset: i.asset,
        amount: i.amount,
        originator,
        beneficiary,
        agents: [
          ...(i.originatorAddress ? [{ "@id": pkh(i.asset, i.originatorAddress), for: i.from, role: "SourceAddress" }] : []),
          { "@id": i.from, for: originator["@id"], role: "VASP", status: "PROCESSING", ...(from ? { name: from.name } : {}) },
          { "@id": i.to, for: beneficiary["@id"], role: "VASP", status: "PROCESSING", ...(caravans.get(i.to) ? { name: caravans.get(i.to)!.name } : {}) },
          { "@id": pkh(i.asset, i.beneficiaryAddress), for: i.to, role: "SettlementAddress", ...(i.memo ? { memoTag: i.memo } : {}) },
          ...(i.extraAgents ?? []),
        ],
        ...(i.memo ? { memoTag: i.memo } : {}),
        flags: [],
        createdTime: iso(),
        updatedTime: iso(),
        pii: {
          originator: sideOf("originator", i.originatorPersons, i.originatorAccountNumber ?? (i.originatorAddress ? [pkh(i.asset, i.originatorAddress)] : []), edition),
          ...(i.beneficiaryPersons ? { beneficiary: sideOf("beneficiary", i.beneficiaryPersons, [account], edition) } : {}),
        },
        checks: [],
      };
      transfers.set(id, tx);
      const status = await notify(tx, "notification.transferCreated");
      return { id, status };
    },
    update(txId, change, o = {}) {
      const tx = mustGet(txId);
      if (change.status !== undefined) tx.status = change.status;
      if (change.flags !== undefined) tx.flags = change.flags;
      if (change.settlement !== undefined) {
        if (change.settlement) tx.settlementId = change.settlement.id;
        else delete tx.settlementId;
      }
      if (change.agent) {
        const a = vaspFor(tx, change.agent.role === "ORIGINATOR" ? "originator" : "beneficiary");
        if (a) a.status = change.agent.status === "PENDING" ? "PROCESSING" : change.agent.status;
      }
      if (change.originatorPersons) {
        const org = vasps.get(vaspFor(tx, "originator")?.["@id"] ?? "");
        tx.pii.originator = sideOf("originator", change.originatorPersons, (tx.pii.originator?.accountNumber as string[] | undefined) ?? [], org?.edition ?? "2023");
      }
      if (change.beneficiaryPersons) {
        const ben = vasps.get(vaspFor(tx, "beneficiary")?.["@id"] ?? "");
        const accounts = (tx.pii.beneficiary?.accountNumber as string[] | undefined) ?? [settlementAddress(tx) ?? ""];
        tx.pii.beneficiary = sideOf("beneficiary", change.beneficiaryPersons, accounts, ben?.edition ?? "2023");
      }
      recompute(tx);
      return o.silent ? Promise.resolve(null) : notify(tx, o.message, { toStatus: tx.status });
    },
    notify(txId, message) {
      return notify(mustGet(txId), message);
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
  check?: string;
}

/** Notabene's paths: transfers under `/tx`, PII appended under `/transfers/{id}/append`. */
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
  const append = /^\/transfers\/([^/]+)\/append$/.exec(rest);
  if (append) return method === "POST" ? { route: "append", did, tx: decodeURIComponent(append[1]) } : null;
  const check = /^\/tx\/([^/]+)\/checks\/(beneficiary-name-matching|internal-checks)$/.exec(rest);
  if (check) return method === "POST" ? { route: "checks", did, tx: decodeURIComponent(check[1]), check: check[2] } : null;
  const t = /^\/tx\/([^/]+)(?:\/(authorize|reject|settle))?$/.exec(rest);
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
