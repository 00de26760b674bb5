// A sandbox provider_e (Sygna Bridge) network: a real loopback HTTP bridge with a signed directory of VASPs (each with
// a behaviour: confirm, slow, silent, deny, forge), permission and status APIs, and callbacks to Caravan signed as the
// provider does. Used by the tests, `caravan sandbox` and the demo; it speaks the wire of src/adapters/providers/provider_e.
import { listen } from "../../adapters/server/index.ts";
import { decryptObject, encryptObject, publicKeyOf, randomPrivateKey, signObject, verifyObject } from "../../adapters/providers/provider_e/crypto.ts";
import { orderedPermission, orderedTransaction, readAddressQuestion, readCdd, readPermission, readPermissionRequestData, type Currency, type PrivateInfo, type ProviderStatus, type Transaction, type TransferData } from "../../adapters/providers/provider_e/wire.ts";
import type { Person } from "../../domain/ivms101/types.ts";

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
  data: TransferData;
  callbackUrl: string | null;
  /** Who sent the permission request and who receives it. */
  from: string;
  to: string;
  /** The signed decision as the beneficiary sent it (relayed to the callback URL). */
  permission: Record<string, unknown> | null;
  permissionDelivered: boolean;
  privateInfo: PrivateInfo | null;
  cdd: Record<string, unknown>[];
  /** Information messages Caravan sent, as the counterparty decrypted them. */
  cddInbox: { messageId: string; type: string; inReplyTo: string | null; content: unknown }[];
}

export interface BridgeOptions {
  vasps?: SandboxVaspInput[];
  currencies?: Currency[];
  port?: number;
  /** Lose the first delivery of each permission callback (the originator must ask for a retry). */
  losePermissionCallbacks?: boolean;
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
  /** Directory faults: stale timestamp, forged signature, HTTP status. */
  setDirectoryFault(f: "stale" | "forged" | { status: number } | null): void;
  /** Every call to `path` answered with this status (and the provider's `code` when given). */
  setRouteFault(path: string, f: RouteFault | null): void;
  options: BridgeOptions;
  /** A sandbox VASP's permission request to Caravan (incoming), as the bridge forwards it; returns Caravan's answer. */
  sendPermissionRequest(p: IncomingInput): Promise<{ transferId: string; status: number; body: unknown }>;
  sendTxid(transferId: string, txid: string, opts?: { forge?: boolean }): Promise<{ status: number; body: unknown }>;
  sendCancel(transferId: string): Promise<{ status: number; body: unknown }>;
  /** The counterparty's information message to Caravan (signed with its key, listed in the signed status), and Caravan's answer. */
  sendCdd(transferId: string, from: string, type: "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD", content: unknown, inReplyTo?: string): Promise<{ messageId: string; wire: Record<string, unknown>; status: number; body: unknown }>;
  /** Raw delivery to a Caravan callback (for fault tests). */
  deliver(event: string, body: unknown, raw?: string): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
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
  originatorExtra?: boolean;
}

export const SANDBOX_CURRENCIES: Currency[] = [
  { currency_id: "sygna:0x8000003c", currency_symbol: "ETH", currency_name: "Ethereum", is_active: true, addr_extra_info: null, platform: "ethereum" },
  { currency_id: "sygna:0x80000000", currency_symbol: "BTC", currency_name: "Bitcoin", is_active: true, addr_extra_info: null, platform: "bitcoin" },
  { currency_id: "sygna:0x8000003c.usdt", currency_symbol: "USDT", currency_name: "Tether", is_active: true, addr_extra_info: null, platform: "ethereum" },
  { currency_id: "sygna:0x80000090", currency_symbol: "XRP", currency_name: "Ripple", is_active: true, addr_extra_info: ["tag"], platform: "ripple" },
];

/** Ready-made counterparties for `caravan sandbox` and the demo: one that confirms, a slow one, one that denies ownership. */
export const DEMO_VASPS: SandboxVaspInput[] = [
  { code: "VASPALPINE", name: "Alpine Exchange", addresses: ["0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"] },
  { code: "VASPHARBOR", name: "Harbor Custody", behaviour: "slow", delayMs: 1500, addresses: ["0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"] },
  { code: "VASPDENIER", name: "Denier Markets", behaviour: "deny" },
];

const hex64 = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startProviderEBridge(opts: BridgeOptions = {}): Promise<ProviderEBridge> {
  const bridgePrivateKey = randomPrivateKey();
  const bridgePublicKey = publicKeyOf(bridgePrivateKey);
  const vasps = new Map<string, SandboxVasp>();
  const transfers = new Map<string, BridgeTransfer>();
  const requests: ProviderEBridge["requests"] = [];
  const stats = { inFlight: 0, maxInFlight: 0, asked: 0 };
  let caravan: CaravanTarget | null = null;
  let directoryFault: "stale" | "forged" | { status: number } | null = null;
  const routeFaults = new Map<string, RouteFault>();
  const hung: (() => void)[] = [];
  const currencies = opts.currencies ?? SANDBOX_CURRENCIES;

  function addVasp(v: SandboxVaspInput): SandboxVasp {
    const privateKey = v.privateKey ?? randomPrivateKey();
    const full: SandboxVasp = { code: v.code, name: v.name ?? v.code, behaviour: v.behaviour ?? "confirm", addresses: v.addresses ?? [], decision: v.decision ?? "ACCEPTED", delayMs: v.delayMs ?? 1500, cddAnswer: v.cddAnswer ?? "auto", losePermission: v.losePermission ?? false, privateKey, publicKey: publicKeyOf(privateKey) };
    vasps.set(v.code, full);
    return full;
  }
  for (const v of opts.vasps ?? []) addVasp(v);

  const bridgeSign = <T extends Record<string, unknown>>(o: T) => signObject(o, bridgePrivateKey);
  const keyOf = (code: string) => (caravan && code === caravan.vaspCode ? caravan.publicKey : vasps.get(code)?.publicKey);

  async function toCaravan(event: string, body: unknown, raw?: string): Promise<{ status: number; body: unknown }> {
    if (!caravan) return { status: 0, body: null };
    const url = `${caravan.serverUrl}/api/system/trp/provider_e/${caravan.environment}/${encodeURIComponent(caravan.providerId)}/${event}`;
    return post(url, raw ?? JSON.stringify(body));
  }

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

  /** The callback URL the originator registered, pointed at Caravan's real origin (the company's host stands in front of it). */
  function realCallback(url: string): string {
    if (!caravan) return url;
    const u = new URL(url);
    return caravan.serverUrl + u.pathname + u.search;
  }

  async function relayPermission(t: BridgeTransfer): Promise<void> {
    if (!t.callbackUrl || !t.permission) return;
    if ((opts.losePermissionCallbacks || vasps.get(t.to)?.losePermission) && !t.permissionDelivered && !(t as { lostOnce?: boolean }).lostOnce) {
      (t as { lostOnce?: boolean }).lostOnce = true;
      return;
    }
    const r = await post(realCallback(t.callbackUrl), JSON.stringify(t.permission));
    if (r.status === 200) t.permissionDelivered = true;
  }

  function statusOf(id: string) {
    const t = transfers.get(id);
    return t ? bridgeSign({ transferData: t.data as unknown as Record<string, unknown>, signature: "" } as Record<string, unknown>) : null;
  }

  /** A sandbox VASP decides on a permission request it received (signed with its own key), relayed to the originator. */
  function beneficiaryDecides(t: BridgeTransfer, v: SandboxVasp): void {
    if (v.decision === "none") return;
    const decision = signObject(
      orderedPermission({ transfer_id: t.data.transfer_id, permission_status: v.decision, ...(v.decision === "ACCEPTED" ? { expire_date: Date.now() + 3600_000 } : { reject_code: "BVRC999", reject_message: "Declined by the sandbox VASP" }) }) as Record<string, unknown>,
      v.privateKey,
    );
    t.permission = decision;
    t.data.permission_status = v.decision;
    t.data.permission_signature = decision.signature;
    if (v.decision === "REJECTED") {
      t.data.reject_code = "BVRC999";
      t.data.reject_message = "Declined by the sandbox VASP";
    }
    if (typeof decision.expire_date === "number") t.data.expire_date = decision.expire_date;
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
    if (v.behaviour === "slow") await Bun.sleep(v.delayMs);
    const owns = v.behaviour === "deny" ? false : q.addrs.every((a) => v.addresses.some((x) => x.toLowerCase() === a.address.toLowerCase()));
    const answer = { vasp_code: v.code, currency_id: q.currency_id, addrs: q.addrs, is_valid: owns };
    return json(200, signObject(answer, v.behaviour === "forge" ? randomPrivateKey() : v.privateKey));
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
        if (directoryFault && typeof directoryFault === "object") return done(json(directoryFault.status, { message: "fault" }));
        const list = [...vasps.values()].map((v) => ({ vasp_code: v.code, vasp_name: v.name, vasp_pubkey: v.publicKey, is_healthy: true }));
        if (caravan) list.unshift({ vasp_code: caravan.vaspCode, vasp_name: caravan.name ?? "Caravan", vasp_pubkey: caravan.publicKey, is_healthy: true });
        const timestamp = directoryFault === "stale" ? Date.now() - 10 * 60_000 : Date.now();
        const signed = signObject({ vasp_data: list, timestamp }, directoryFault === "forged" ? randomPrivateKey() : bridgePrivateKey);
        return done(json(200, signed));
      }
      case "GET /bridge/transaction/currencies":
        return done(json(200, { supported_coins: currencies }));
      case "GET /bridge/transaction/status": {
        const s = statusOf(url.searchParams.get("transfer_id") ?? "");
        return done(s ? json(200, s) : json(404, { message: "transfer not found" }));
      }
      case "POST /bridge/vasp/address-validation": {
        const q = readAddressQuestion(body);
        if (!q) return done(json(400, { message: "invalid question" }));
        const asker = keyOf(q.originator_vasp_code);
        if (!asker || !verifyObject(body, asker)) return done(json(401, { message: "invalid signature" }));
        stats.asked++;
        stats.inFlight++;
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
        try {
          if (caravan && q.vasp_code === caravan.vaspCode) {
            const { signature: _s, ...rest } = body;
            const r = await toCaravan("address-validation", bridgeSign(rest));
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
        const data = readPermissionRequestData(body?.data);
        const cb = body?.callback;
        if (!data || typeof cb?.callback_url !== "string") return done(json(400, { message: "invalid permission request" }));
        const from = data.transaction.originator_vasp_code;
        const key = keyOf(from);
        if (!key || !verifyObject(data, key) || !verifyObject(cb, key)) return done(json(401, { message: "invalid signature" }));
        const id = hex64();
        const t: BridgeTransfer = {
          data: { transfer_id: id, private_info: data.private_info, transaction: data.transaction, data_dt: data.data_dt, permission_request_data_signature: data.signature, permission_status: null, permission_signature: null, txid: null, txid_signature: null, created_at: new Date().toISOString(), transfer_to_originator_time: null, ...(data.expire_date ? { expire_date: data.expire_date } : {}) },
          callbackUrl: cb.callback_url,
          from,
          to: data.transaction.beneficiary_vasp_code,
          permission: null,
          permissionDelivered: false,
          privateInfo: null,
          cdd: [],
          cddInbox: [],
        };
        transfers.set(id, t);
        const v = vasps.get(t.to);
        if (v) {
          t.privateInfo = decryptObject(data.private_info, v.privateKey) as PrivateInfo | null;
          setTimeout(() => beneficiaryDecides(t, v), 50);
        }
        return done(json(200, { transfer_id: id }));
      }
      case "POST /bridge/transaction/permission": {
        const p = readPermission(body);
        const t = p ? transfers.get(p.transfer_id) : undefined;
        if (!p || !t) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.to);
        if (!key || !verifyObject(body, key)) return done(json(401, { message: "invalid signature" }));
        if (t.data.permission_status && t.data.permission_status !== p.permission_status) return done(json(409, { message: "decision conflict" }));
        t.permission = body;
        t.data.permission_status = p.permission_status;
        t.data.permission_signature = p.signature;
        if (p.reject_code) t.data.reject_code = p.reject_code;
        if (p.expire_date) t.data.expire_date = p.expire_date;
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/txid": {
        const t = transfers.get(body?.transfer_id);
        if (!t) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.from);
        if (!key || !verifyObject(body, key)) return done(json(401, { message: "invalid signature" }));
        if (t.data.permission_status !== "ACCEPTED") return done(json(400, { message: "permission required", code: "PERMISSION_REQUIRED" }));
        if (t.data.txid && t.data.txid !== body.txid) return done(json(409, { message: "txid conflict", code: "TXID_CONFLICT" }));
        t.data.txid = body.txid;
        t.data.txid_signature = body.signature;
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/retry": {
        let n = 0;
        for (const t of transfers.values())
          if (t.from === body?.vasp_code && t.permission && !t.permissionDelivered) {
            n++;
            await relayPermission(t);
          }
        return done(json(200, { retryItems: n }));
      }
      case "POST /bridge/transaction/cancel": {
        const t = transfers.get(body?.transfer_id);
        if (!t) return done(json(404, { message: "transfer not found" }));
        const key = keyOf(t.from);
        if (!key || !verifyObject(body, key)) return done(json(401, { message: "invalid signature" }));
        t.data.permission_status = "CANCELED";
        t.data.cancel_signature = body.signature;
        return done(json(200, { status: "OK" }));
      }
      case "POST /bridge/transaction/cdd": {
        const m = readCdd(body);
        const t = m ? transfers.get(m.transfer_id) : undefined;
        if (!m || !t) return done(json(404, { message: "transfer not found" }));
        const sender = caravan && (t.from === caravan.vaspCode || t.to === caravan.vaspCode) ? caravan.vaspCode : null;
        const key = sender ? keyOf(sender) : undefined;
        if (!key || !verifyObject(body, key)) return done(json(401, { message: "invalid signature" }));
        // A message ID once relayed is not relayed again (a resend after a crash is the same signed body).
        if (t.cdd.some((x) => x.message_id === m.message_id)) return done(json(200, { status: "OK" }));
        const v = vasps.get(t.from === caravan!.vaspCode ? t.to : t.from);
        if (!v) return done(json(404, { message: "counterparty unknown", code: "VASP_NOT_FOUND" }));
        t.cdd.push(body);
        (t.data.cdd ??= []).push({ message_id: m.message_id, signature: m.signature });
        const content = decryptObject(m.private_info, v.privateKey);
        t.cddInbox.push({ messageId: m.message_id, type: m.type, inReplyTo: m.in_reply_to ?? null, content });
        if (m.type === "REQUEST_CDD" && v.cddAnswer !== "none") setTimeout(() => void answerRequest(t, v, m.message_id, content), 50);
        return done(json(200, { status: "OK" }));
      }
      default:
        return done(json(404, { message: "not found" }));
    }
  }

  /** The counterparty answers Caravan's information request: each asked field filled in, or a plain text answer. */
  async function answerRequest(t: BridgeTransfer, v: SandboxVasp, requestId: string, asked: unknown): Promise<void> {
    const fields = (asked && typeof asked === "object" ? asked : {}) as Record<string, unknown>;
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
    const body = signObject(
      { transfer_id: t.data.transfer_id, message_id: messageId, type, ...(inReplyTo ? { in_reply_to: inReplyTo } : {}), private_info: encryptObject(content, caravan!.publicKey), data_dt: new Date().toISOString() },
      v.privateKey,
    );
    t.cdd.push(body);
    (t.data.cdd ??= []).push({ message_id: messageId, signature: body.signature });
    const r = await toCaravan("cdd", body);
    return { messageId, wire: body, status: r.status, body: r.body };
  }

  const server = await listen(handle, { hostname: "127.0.0.1", port: opts.port ?? 0 });
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
      const info: PrivateInfo = {
        originator: { originatorPersons: p.originatorPersons, accountNumber: [p.originatorAddress] },
        beneficiary: { beneficiaryPersons: p.beneficiaryPersons, accountNumber: [p.beneficiaryAddress] },
        originatingVASP: { originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: v.name, legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: "DE" } } as Person },
      };
      const transaction: Transaction = orderedTransaction({
        originator_vasp_code: v.code,
        originator_addrs: p.extraOriginatorAddress ? [p.originatorAddress, `${p.originatorAddress}0`] : [p.originatorAddress],
        ...(p.originatorExtra ? { originator_addrs_extra: { [p.originatorAddress]: [{ memo: "x" }] } } : {}),
        beneficiary_vasp_code: caravan.vaspCode,
        beneficiary_addrs: [p.beneficiaryAddress],
        transaction_currency: p.currencyId ?? "sygna:0x8000003c",
        amount: p.amount ?? "1",
        platform: "ethereum",
      });
      const data = signObject(
        { private_info: encryptObject(info, caravan.publicKey), transaction, data_dt: p.dataDt ?? new Date().toISOString(), ...(p.expireDate !== undefined ? { expire_date: p.expireDate } : {}), need_validate_addr: true },
        v.privateKey,
      );
      const id = hex64();
      const t: BridgeTransfer = {
        data: { transfer_id: id, private_info: data.private_info, transaction, data_dt: data.data_dt, permission_request_data_signature: data.signature, permission_status: null, permission_signature: null, txid: null, txid_signature: null, created_at: new Date().toISOString(), transfer_to_originator_time: new Date().toISOString(), ...(p.expireDate !== undefined ? { expire_date: p.expireDate } : {}) },
        callbackUrl: null,
        from: v.code,
        to: caravan.vaspCode,
        permission: null,
        permissionDelivered: false,
        privateInfo: info,
        cdd: [],
        cddInbox: [],
      };
      transfers.set(id, t);
      const r = await toCaravan("permission-request", { transfer_id: id, data });
      return { transferId: id, ...r };
    },
    async sendTxid(transferId, txid, o = {}) {
      const t = transfers.get(transferId)!;
      const v = counterpartOf(t);
      const body = signObject({ transfer_id: transferId, txid }, o.forge ? randomPrivateKey() : v.privateKey);
      if (!o.forge) {
        t.data.txid = txid;
        t.data.txid_signature = body.signature;
      }
      return toCaravan("txid", body);
    },
    async sendCancel(transferId) {
      const t = transfers.get(transferId)!;
      const v = counterpartOf(t);
      const body = signObject({ transfer_id: transferId, cancel_reason: "Canceled by the originator" }, v.privateKey);
      t.data.permission_status = "CANCELED" as ProviderStatus;
      t.data.cancel_signature = body.signature;
      return toCaravan("cancel", body);
    },
    async sendCdd(transferId, from, type, content, inReplyTo) {
      const t = transfers.get(transferId)!;
      const v = vasps.get(from)!;
      return relayCdd(t, v, type, content, inReplyTo);
    },
    deliver: (event, body, raw) => toCaravan(event, body, raw),
    async stop() {
      for (const r of hung.splice(0)) r();
      await server.stop();
    },
  };
}
