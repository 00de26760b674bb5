// A sandbox provider_e network: a loopback Sygna Bridge v2 with a signed directory of VASPs (each with a behaviour:
// confirm, slow, silent, deny, forge), currencies, permission requests, status, txid, retry, and the designed cancel,
// cdd and address-validation relays, calling Caravan back as the bridge does. A separate party: written from Sygna's
// published references on its official utility `@sygna/bridge-util` (./sygna.ts), it shares no code with Caravan's
// adapter, actors or HTTP layer, so a misreading on either side shows up in the end-to-end tests.
import { convertTo2023 } from "ivms101/legacy";
import type { Person } from "../../domain/ivms101/types.ts";
import { decrypt, encrypt, publicKeyOf, randomPrivateKey, sign, verify } from "./sygna.ts";
import { isRec, permissionBody, readAddressQuestion, readPermissionRequest, toSnake, type PermissionStatus, type Rec, type SygnaCurrency, type SygnaTransaction, type SygnaTransferData } from "./wire.ts";

export type VaspBehaviour = "confirm" | "slow" | "silent" | "deny" | "forge";

export interface SandboxVaspInput {
  code: string;
  name?: string;
  /** How it answers address questions and permission requests; default confirm. */
  behaviour?: VaspBehaviour;
  /** Addresses it owns (confirmed when asked); `confirm` VASPs with no list confirm nothing. */
  addresses?: string[];
  /** Its decision on permission requests: ACCEPTED (default), REJECTED, or none (never decides). */
  decision?: "ACCEPTED" | "REJECTED" | "none";
  /** Delay of `slow` answers (ms); default 1500. */
  delayMs?: number;
  /** How it treats an information request from Caravan: `auto` answers it (default), `text` answers with plain text, `none` never answers. */
  cddAnswer?: "auto" | "text" | "none";
  /** Its first permission callback to the originator is lost (the originator must ask the bridge to retry). */
  losePermission?: boolean;
  /** It decides at once, and the bridge relays the decision before answering the originator's request (1 s later). */
  decideBeforeAnswer?: boolean;
  privateKey?: string;
}

export interface SandboxVasp extends Required<Omit<SandboxVaspInput, "privateKey">> {
  privateKey: string;
  publicKey: string;
}

export interface CaravanTarget {
  vaspCode: string;
  publicKey: string;
  /** Caravan's real origin (http on loopback): callbacks go there whatever host `callbackBaseUrl` names. */
  serverUrl: string;
  environment: "test" | "live";
  providerId: string;
  name?: string;
}

export interface BridgeTransfer {
  data: SygnaTransferData;
  callbackUrl: string | null;
  /** Who sent the permission request and who receives it. */
  from: string;
  to: string;
  /** The signed decision as the beneficiary sent it (relayed to the callback URL). */
  permission: Rec | null;
  permissionDelivered: boolean;
  lostOnce: boolean;
  /** The IVMS101 of the request as its beneficiary (a sandbox VASP) decrypted it, or as a sandbox VASP sent it. */
  privateInfo: any;
  cdd: Rec[];
  /** Information messages Caravan sent, as the counterparty decrypted them. */
  cddInbox: { messageId: string; type: string; inReplyTo: string | null; content: unknown }[];
}

export interface BridgeOptions {
  vasps?: SandboxVaspInput[];
  currencies?: SygnaCurrency[];
  port?: number;
  /** Lose the first delivery of each permission callback (the originator must ask for a retry). */
  losePermissionCallbacks?: boolean;
}

/** A route answered with a status (and the provider's `code`), or taken and never answered (`hang`, released by stop). */
export type RouteFault = { status: number; code?: string } | { hang: true };

export interface IncomingInput {
  from: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  originatorAddress: string;
  beneficiaryAddress: string;
  currencyId?: string;
  amount?: string;
  expireDate?: number;
  dataDt?: string;
  extraOriginatorAddress?: boolean;
  /** Extra information (a memo) on the originator's address. */
  originatorExtra?: boolean;
  /** How the IVMS101 in `private_info` is written: camelCase 2020 edition (default), its snake_case rendering, or the 2023 edition. */
  spelling?: "camelCase" | "snake_case" | "2023";
  /** Sent as `private_info` instead of the IVMS101 built from the fields above (for messages in other shapes). */
  rawPrivateInfo?: unknown;
  /** Sent as `transaction` instead of the v2 transaction built from the fields above. */
  rawTransaction?: Rec;
}

export interface ProviderEBridge {
  readonly url: string;
  /** The base address to configure (`CARAVAN_PROVIDER_E_TEST_URL`): `<url>/v2`. */
  readonly baseUrl: string;
  readonly bridgePrivateKey: string;
  readonly bridgePublicKey: string;
  readonly vasps: Map<string, SandboxVasp>;
  readonly transfers: Map<string, BridgeTransfer>;
  /** Every call received: method, path, status. */
  readonly requests: { method: string; path: string; status: number; apiKey: string | null }[];
  /** Address questions in flight now, and the most ever at once. */
  readonly stats: { inFlight: number; maxInFlight: number; asked: number };
  addVasp(v: SandboxVaspInput): SandboxVasp;
  registerCaravan(t: CaravanTarget): void;
  /**
   * Directory faults: stale timestamp, forged signature, HTTP status, or `{agedMs}`: a directory signed that long
   * before it is served (a bridge answering from its own cache), still fresh when fetched.
   */
  setDirectoryFault(f: "stale" | "forged" | { status: number } | { agedMs: number } | null): void;
  /** Every call to `path` answered with this status (and the provider's `code` when given). */
  setRouteFault(path: string, f: RouteFault | null): void;
  options: BridgeOptions;
  /** A sandbox VASP's permission request to Caravan (incoming), as the bridge forwards it; returns Caravan's answer. */
  sendPermissionRequest(p: IncomingInput): Promise<{ transferId: string; status: number; body: unknown }>;
  sendTxid(transferId: string, txid: string, opts?: { forge?: boolean }): Promise<{ status: number; body: unknown }>;
  sendCancel(transferId: string): Promise<{ status: number; body: unknown }>;
  /** The counterparty's information message to Caravan (signed with its key, listed in the signed status), and Caravan's answer. */
  sendCdd(transferId: string, from: string, type: "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD", content: unknown, inReplyTo?: string): Promise<{ messageId: string; wire: Rec; status: number; body: unknown }>;
  /** Raw delivery to a Caravan callback (for fault tests). */
  deliver(event: string, body: unknown, raw?: string): Promise<{ status: number; body: unknown }>;
  /** An object signed with the bridge's key (with the utility). */
  signAsBridge<T extends Rec>(o: T): T & { signature: string };
  stop(): Promise<void>;
}

const ETH_PLATFORM = { id: "sygna:0x8000003c", name: "Ethereum", symbol: "ETH" };

/** Supported coins in the published shape: native coins with `platform: null`, a token with its platform. */
export const SANDBOX_CURRENCIES: SygnaCurrency[] = [
  { currency_id: "sygna:0x8000003c", currency_name: "Ethereum", currency_symbol: "ETH", is_active: true, addr_extra_info: [], platform: null },
  { currency_id: "sygna:0x80000000", currency_name: "Bitcoin", currency_symbol: "BTC", is_active: true, addr_extra_info: [], platform: null },
  {
    currency_id: "sygna:0x8000003c.0xdac17f958d2ee523a2206206994597c13d831ec7",
    currency_name: "Tether USD",
    currency_symbol: "USDT",
    is_active: true,
    addr_extra_info: [],
    platform: { ...ETH_PLATFORM, token_address: "0xdac17f958d2ee523a2206206994597c13d831ec7" },
  },
  { currency_id: "sygna:0x80000090", currency_name: "XRP", currency_symbol: "XRP", is_active: true, addr_extra_info: ["tag"], platform: null },
];

/** Ready-made counterparties for `caravan sandbox`: one that confirms, a slow one, one that denies ownership. */
export const DEMO_VASPS: SandboxVaspInput[] = [
  { code: "VASPALPINE", name: "Alpine Exchange", addresses: ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"] },
  { code: "VASPHARBOR", name: "Harbor Custody", behaviour: "slow", delayMs: 1500, addresses: ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"] },
  { code: "VASPDENIER", name: "Denier Markets", behaviour: "deny" },
];

const hex64 = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The published `transferData` of a new transfer, in its documented key order, then what the bridge also keeps. */
function transferData(id: string, data: { private_info: string; transaction: SygnaTransaction; data_dt: string; signature: string; expire_date?: number }, toOriginator: string | null): SygnaTransferData {
  return {
    transfer_id: id,
    transaction: data.transaction,
    data_dt: data.data_dt,
    permission_request_data_signature: data.signature,
    permission_status: null,
    permission_signature: null,
    txid_signature: null,
    created_at: new Date().toISOString(),
    transfer_to_originator_time: toOriginator,
    private_info: data.private_info,
    txid: null,
    ...(data.expire_date ? { expire_date: data.expire_date } : {}),
  };
}

/** IVMS101 for `private_info` as a sandbox VASP writes it (camelCase 2020 by default). */
function ivms(p: IncomingInput, vaspName: string): unknown {
  const message = {
    originator: { originatorPersons: p.originatorPersons, accountNumber: [p.originatorAddress] },
    beneficiary: { beneficiaryPersons: p.beneficiaryPersons, accountNumber: [p.beneficiaryAddress] },
    originatingVASP: { originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: vaspName, legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "DE" } } },
  };
  if (p.spelling === "snake_case") return toSnake(message);
  if (p.spelling === "2023") return convertTo2023(message as never);
  return message;
}

export async function startProviderEBridge(opts: BridgeOptions = {}): Promise<ProviderEBridge> {
  const bridgePrivateKey = randomPrivateKey();
  const bridgePublicKey = publicKeyOf(bridgePrivateKey);
  const vasps = new Map<string, SandboxVasp>();
  const transfers = new Map<string, BridgeTransfer>();
  const requests: ProviderEBridge["requests"] = [];
  const stats = { inFlight: 0, maxInFlight: 0, asked: 0 };
  let caravan: CaravanTarget | null = null;
  let directoryFault: "stale" | "forged" | { status: number } | { agedMs: number } | null = null;
  const routeFaults = new Map<string, RouteFault>();
  const hung: (() => void)[] = [];
  let stopped = false;
  const currencies = opts.currencies ?? SANDBOX_CURRENCIES;

  function addVasp(v: SandboxVaspInput): SandboxVasp {
    const privateKey = v.privateKey ?? randomPrivateKey();
    const full: SandboxVasp = { code: v.code, name: v.name ?? v.code, behaviour: v.behaviour ?? "confirm", addresses: v.addresses ?? [], decision: v.decision ?? "ACCEPTED", delayMs: v.delayMs ?? 1500, cddAnswer: v.cddAnswer ?? "auto", losePermission: v.losePermission ?? false, decideBeforeAnswer: v.decideBeforeAnswer ?? false, privateKey, publicKey: publicKeyOf(privateKey) };
    vasps.set(v.code, full);
    return full;
  }
  for (const v of opts.vasps ?? []) addVasp(v);

  const bridgeSign = <T extends Rec>(o: T) => sign(o, bridgePrivateKey);
  const keyOf = (code: string) => (caravan && code === caravan.vaspCode ? caravan.publicKey : vasps.get(code)?.publicKey);

  async function post(url: string, text: string): Promise<{ status: number; body: unknown }> {
    try {
      const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text, redirect: "manual" });
      const t = await r.text();
      let b: unknown = t;
      try {
        b = JSON.parse(t);
      } catch {
        // kept as text
      }
      return { status: r.status, body: b };
    } catch {
      return { status: 0, body: null };
    }
  }

  async function toCaravan(event: string, body: unknown, raw?: string): Promise<{ status: number; body: unknown }> {
    if (!caravan) return { status: 0, body: null };
    const url = `${caravan.serverUrl}/api/system/trp/provider_e/${caravan.environment}/${encodeURIComponent(caravan.providerId)}/${event}`;
    return post(url, raw ?? JSON.stringify(body));
  }

  /** The callback URL the originator registered, pointed at Caravan's real origin (the company's host stands in front of it). */
  function realCallback(url: string): string {
    if (!caravan) return url;
    const u = new URL(url);
    return caravan.serverUrl + u.pathname + u.search;
  }

  async function relayPermission(t: BridgeTransfer): Promise<void> {
    if (!t.callbackUrl || !t.permission) return;
    if ((opts.losePermissionCallbacks || vasps.get(t.to)?.losePermission) && !t.permissionDelivered && !t.lostOnce) {
      t.lostOnce = true;
      return;
    }
    // Like a bridge, a callback answered 5xx (or not at all) is delivered again a few times, backing off.
    for (let attempt = 0; attempt < 5 && !stopped; attempt++) {
      if (attempt > 0) await sleep(500 * 2 ** attempt);
      const r = await post(realCallback(t.callbackUrl), JSON.stringify(t.permission));
      if (r.status === 200) t.permissionDelivered = true;
      if (r.status !== 0 && r.status < 500) return;
    }
  }

  function statusOf(id: string) {
    const t = transfers.get(id);
    return t ? bridgeSign({ transferData: t.data as unknown as Rec }) : null;
  }

  function record(t: BridgeTransfer, decision: Rec & { signature: string }): void {
    t.permission = decision;
    t.data.permission_status = decision.permission_status as PermissionStatus;
    t.data.permission_signature = decision.signature;
    if (decision.permission_status === "REJECTED") {
      t.data.reject_code = (decision.reject_code as string | undefined) ?? null;
      t.data.reject_message = (decision.reject_message as string | undefined) ?? null;
    }
    if (typeof decision.expire_date === "number") t.data.expire_date = decision.expire_date;
  }

  /** A sandbox VASP decides on a permission request it received (signed with its own key), relayed to the originator. */
  function beneficiaryDecides(t: BridgeTransfer, v: SandboxVasp): void {
    if (v.decision === "none") return;
    const decision = sign(
      permissionBody({ transfer_id: t.data.transfer_id, permission_status: v.decision, ...(v.decision === "ACCEPTED" ? { expire_date: Date.now() + 3600_000 } : { reject_code: "BVRC999", reject_message: "Declined by the sandbox VASP" }) }),
      v.privateKey,
    );
    record(t, decision);
    void relayPermission(t);
  }

  async function answerAddress(v: SandboxVasp, q: NonNullable<ReturnType<typeof readAddressQuestion>>, signal: AbortSignal): Promise<Response> {
    if (v.behaviour === "silent") {
      // Never answers; the question stops counting as in flight when the asker gives up (disconnects).
      await new Promise<void>((r) => {
        hung.push(r);
        signal.addEventListener("abort", () => r(), { once: true });
      });
      return json(504, { error: "timeout" });
    }
    if (v.behaviour === "slow") await sleep(v.delayMs);
    const owns = v.behaviour === "deny" ? false : q.addrs.every((a) => v.addresses.some((x) => x.toLowerCase() === a.address.toLowerCase()));
    const answer = { vasp_code: v.code, currency_id: q.currency_id, addrs: q.addrs, is_valid: owns };
    return json(200, sign(answer, v.behaviour === "forge" ? randomPrivateKey() : v.privateKey));
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/v2/, "");
    const apiKey = req.headers.get("x-api-key");
    const done = (r: Response) => {
      requests.push({ method: req.method, path, status: r.status, apiKey });
      return r;
    };
    if (!apiKey) return done(json(401, { message: "missing x-api-key" }));
    const fault = routeFaults.get(path);
    if (fault && "hang" in fault) {
      requests.push({ method: req.method, path, status: 0, apiKey });
      await new Promise<void>((r) => hung.push(r));
      return json(504, { message: "released" });
    }
    if (fault) return done(json(fault.status, { message: "fault", ...(fault.code ? { code: fault.code } : {}) }));
    let body: any = null;
    if (req.method === "POST") {
      try {
        body = await req.json();
      } catch {
        return done(json(400, { message: "invalid json" }));
      }
    }
    switch (`${req.method} ${path}`) {
      case "GET /bridge/vasp": {
        if (directoryFault && typeof directoryFault === "object" && "status" in directoryFault) return done(json(directoryFault.status, { message: "fault" }));
        // Directory entries as published (2.x), every field of the type definitions.
        const entry = (code: string, name: string, pubkey: string) => ({ vasp_name: name, vasp_code: code, vasp_pubkey: pubkey, vasp_server_status: "HEALTHY", last_server_checked_at: new Date().toISOString(), regulatoryStatus: "Regulated" });
        const list = [...vasps.values()].map((v) => entry(v.code, v.name, v.publicKey));
        if (caravan) list.unshift(entry(caravan.vaspCode, caravan.name ?? "Caravan", caravan.publicKey));
        const aged = directoryFault && typeof directoryFault === "object" ? directoryFault.agedMs : 0;
        const timestamp = directoryFault === "stale" ? Date.now() - 10 * 60_000 : Date.now() - aged;
        return done(json(200, sign({ vasp_data: list, timestamp }, directoryFault === "forged" ? randomPrivateKey() : bridgePrivateKey)));
      }
      case "GET /bridge/transaction/currencies":
        return done(json(200, { supported_coins: currencies }));
      case "GET /bridge/transaction/status": {
        const s = statusOf(url.searchParams.get("transfer_id") ?? "");
        return done(s ? json(200, s) : json(404, { message: "transfer not found" }));
      }
      case "POST /bridge/vasp/address-validation": {
        const q = readAddressQuestion(body);
        if (!q || typeof q.originator_vasp_code !== "string") return done(json(400, { message: "invalid question" }));
        const asker = keyOf(q.originator_vasp_code);
        if (!asker || !verify(body, asker)) return done(json(401, { message: "invalid signature" }));
        stats.asked++;
        stats.inFlight++;
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
        try {
          if (caravan && q.vasp_code === caravan.vaspCode) {
            // Relayed to the VASP asked, signed by the bridge; the asker is named beside the question.
            const r = await toCaravan("address-validation", bridgeSign({ vasp_code: q.vasp_code, currency_id: q.currency_id, addrs: q.addrs, requester_vasp_code: q.originator_vasp_code, data_dt: new Date().toISOString() }));
            return done(json(r.status || 502, r.body));
          }
          const v = vasps.get(q.vasp_code);
          if (!v) return done(json(404, { message: "unknown vasp" }));
          return done(await answerAddress(v, q, req.signal));
        } finally {
          stats.inFlight--;
        }
      }
      case "POST /bridge/transaction/permission-request": {
        const data = readPermissionRequest(body?.data);
        const cb = body?.callback;
        if (!data || !isRec(cb) || typeof cb.callback_url !== "string") return done(json(400, { message: "invalid permission request" }));
        const from = data.transaction.originator_vasp.vasp_code;
        const key = keyOf(from);
        if (!key || !verify(data, key) || !verify(cb, key)) return done(json(401, { message: "invalid signature" }));
        const id = hex64();
        const t: BridgeTransfer = { data: transferData(id, data, null), callbackUrl: cb.callback_url, from, to: data.transaction.beneficiary_vasp.vasp_code, permission: null, permissionDelivered: false, lostOnce: false, privateInfo: null, cdd: [], cddInbox: [] };
        transfers.set(id, t);
        const v = vasps.get(t.to);
        if (v) {
          t.privateInfo = decrypt(data.private_info, v.privateKey);
          if (v.decideBeforeAnswer) {
            beneficiaryDecides(t, v);
            await sleep(1000);
          } else setTimeout(() => beneficiaryDecides(t, v), 50);
        }
        return done(json(200, { transfer_id: id }));
      }
      case "POST /bridge/transaction/permission": {
        const t = typeof body?.transfer_id === "string" ? transfers.get(body.transfer_id) : undefined;
        if (!t || (body.permission_status !== "ACCEPTED" && body.permission_status !== "REJECTED")) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.to);
        if (!key || !verify(body, key)) return done(json(401, { message: "invalid signature" }));
        if (t.data.permission_status && t.data.permission_status !== body.permission_status) return done(json(409, { message: "decision conflict" }));
        record(t, body);
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/txid": {
        const t = typeof body?.transfer_id === "string" ? transfers.get(body.transfer_id) : undefined;
        if (!t) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.from);
        if (!key || !verify(body, key)) return done(json(401, { message: "invalid signature" }));
        if (t.data.permission_status !== "ACCEPTED") return done(json(400, { message: "permission required", code: "PERMISSION_REQUIRED" }));
        if (t.data.txid && t.data.txid !== body.txid) return done(json(409, { message: "txid conflict", code: "TXID_CONFLICT" }));
        t.data.txid = body.txid;
        t.data.txid_signature = body.signature;
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/retry": {
        // The lost callbacks are delivered again after the answer (the caller may be the one they are delivered to).
        const lost = [...transfers.values()].filter((t) => t.from === body?.vasp_code && t.permission && !t.permissionDelivered);
        setTimeout(() => {
          for (const t of lost) void relayPermission(t);
        }, 0);
        return done(json(200, { retry_items: lost.length }));
      }
      case "POST /bridge/transaction/cancel": {
        const t = typeof body?.transfer_id === "string" ? transfers.get(body.transfer_id) : undefined;
        if (!t) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.from);
        if (!key || !verify(body, key)) return done(json(401, { message: "invalid signature" }));
        t.data.permission_status = "CANCELED";
        t.data.cancel_signature = body.signature;
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/cdd": {
        const t = typeof body?.transfer_id === "string" ? transfers.get(body.transfer_id) : undefined;
        if (!t || typeof body.message_id !== "string" || typeof body.private_info !== "string") return done(json(404, { message: "transfer not found" }));
        const sender = caravan && (t.from === caravan.vaspCode || t.to === caravan.vaspCode) ? caravan.vaspCode : null;
        const key = sender ? keyOf(sender) : undefined;
        if (!key || !verify(body, key)) return done(json(401, { message: "invalid signature" }));
        // A message ID once relayed is not relayed again (a resend after a crash is the same signed body).
        if (t.cdd.some((x) => x.message_id === body.message_id)) return done(json(200, { status: "OK" }));
        const v = vasps.get(t.from === caravan!.vaspCode ? t.to : t.from);
        if (!v) return done(json(404, { message: "counterparty unknown", code: "VASP_NOT_FOUND" }));
        t.cdd.push(body);
        (t.data.cdd ??= []).push({ message_id: body.message_id, signature: body.signature });
        const content = decrypt(body.private_info, v.privateKey);
        t.cddInbox.push({ messageId: body.message_id, type: body.type, inReplyTo: body.in_reply_to ?? null, content });
        if (body.type === "REQUEST_CDD" && v.cddAnswer !== "none") setTimeout(() => void answerRequest(t, v, body.message_id, content), 50);
        return done(json(200, { status: "OK" }));
      }
      default:
        return done(json(404, { message: "not found" }));
    }
  }

  /** The counterparty answers Caravan's information request: each asked field filled in, or a plain text answer. */
  async function answerRequest(t: BridgeTransfer, v: SandboxVasp, requestId: string, asked: unknown): Promise<void> {
    const fields = (asked && typeof asked === "object" ? asked : {}) as Rec;
    const answer: unknown =
      v.cddAnswer === "text"
        ? `Answer from ${v.name}: the originator is a long-standing customer.`
        : Object.fromEntries(
            Object.entries(fields).map(([k, x]) => [k, Array.isArray(x) ? Object.fromEntries(x.map((n) => [n, `${n} of the originator`])) : k === "other_cdd_info" ? `Answered by ${v.name}` : "DE"]),
          );
    await relayCdd(t, v, "RESPOND_CDD", answer, requestId);
  }

  async function relayCdd(t: BridgeTransfer, v: SandboxVasp, type: "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD", content: unknown, inReplyTo?: string) {
    const messageId = crypto.randomUUID();
    const body = sign({ transfer_id: t.data.transfer_id, message_id: messageId, type, ...(inReplyTo ? { in_reply_to: inReplyTo } : {}), private_info: encrypt(content, caravan!.publicKey), data_dt: new Date().toISOString() }, v.privateKey);
    t.cdd.push(body);
    (t.data.cdd ??= []).push({ message_id: messageId, signature: body.signature });
    const r = await toCaravan("cdd", body);
    return { messageId, wire: body as Rec, status: r.status, body: r.body };
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: opts.port ?? 0, fetch: handle, idleTimeout: 60 });
  const url = `http://127.0.0.1:${server.port}`;

  function counterpartOf(t: BridgeTransfer): SandboxVasp {
    const code = caravan && t.from === caravan.vaspCode ? t.to : t.from;
    const v = vasps.get(code);
    if (!v) throw new Error(`no sandbox VASP ${code}`);
    return v;
  }

  return {
    url,
    baseUrl: `${url}/v2`,
    bridgePrivateKey,
    bridgePublicKey,
    vasps,
    transfers,
    requests,
    stats,
    options: opts,
    addVasp,
    registerCaravan(t) {
      caravan = t;
    },
    setDirectoryFault(f) {
      directoryFault = f;
    },
    setRouteFault(path, f) {
      if (f) routeFaults.set(path, f);
      else routeFaults.delete(path);
    },
    async sendPermissionRequest(p) {
      if (!caravan) throw new Error("register Caravan first");
      const v = vasps.get(p.from);
      if (!v) throw new Error(`no sandbox VASP ${p.from}`);
      const info = p.rawPrivateInfo !== undefined ? p.rawPrivateInfo : ivms(p, v.name);
      const originatorAddrs = [{ address: p.originatorAddress, addr_extra_info: p.originatorExtra ? [{ memo_text: "x" }] : [] }];
      if (p.extraOriginatorAddress) originatorAddrs.push({ address: `${p.originatorAddress}0`, addr_extra_info: [] });
      const transaction: SygnaTransaction = (p.rawTransaction as unknown as SygnaTransaction | undefined) ?? {
        originator_vasp: { vasp_code: v.code, addrs: originatorAddrs },
        beneficiary_vasp: { vasp_code: caravan.vaspCode, addrs: [{ address: p.beneficiaryAddress, addr_extra_info: [] }] },
        currency_id: p.currencyId ?? "sygna:0x8000003c",
        amount: p.amount ?? "1",
      };
      const data = sign({ private_info: encrypt(info, caravan.publicKey), transaction, data_dt: p.dataDt ?? new Date().toISOString(), ...(p.expireDate !== undefined ? { expire_date: p.expireDate } : {}), need_validate_addr: true }, v.privateKey);
      const id = hex64();
      const t: BridgeTransfer = { data: transferData(id, data, new Date().toISOString()), callbackUrl: null, from: v.code, to: caravan.vaspCode, permission: null, permissionDelivered: false, lostOnce: false, privateInfo: info, cdd: [], cddInbox: [] };
      transfers.set(id, t);
      const r = await toCaravan("permission-request", { transfer_id: id, data });
      return { transferId: id, ...r };
    },
    async sendTxid(transferId, txid, o = {}) {
      const t = transfers.get(transferId)!;
      const v = counterpartOf(t);
      const body = sign({ transfer_id: transferId, txid }, o.forge ? randomPrivateKey() : v.privateKey);
      if (!o.forge) {
        t.data.txid = txid;
        t.data.txid_signature = body.signature;
      }
      return toCaravan("txid", body);
    },
    async sendCancel(transferId) {
      const t = transfers.get(transferId)!;
      const v = counterpartOf(t);
      const body = sign({ transfer_id: transferId, cancel_reason: "Canceled by the originator" }, v.privateKey);
      t.data.permission_status = "CANCELED";
      t.data.cancel_signature = body.signature;
      return toCaravan("cancel", body);
    },
    async sendCdd(transferId, from, type, content, inReplyTo) {
      const t = transfers.get(transferId)!;
      const v = vasps.get(from)!;
      return relayCdd(t, v, type, content, inReplyTo);
    },
    deliver: (event, body, raw) => toCaravan(event, body, raw),
    signAsBridge: (o) => bridgeSign(o),
    async stop() {
      stopped = true;
      for (const r of hung.splice(0)) r();
      await server.stop(true);
    },
  };
}
