// provider_b (CodeVASP) Request-API client: signs every call, seals payloads, and answers with values, never exceptions.
import { exchange, type ExchangeFetch, type Exchanged } from "../../net/exchange.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { openPayload, ProviderBKeyError, publicKeyBase64, sealPayload, signRequest, keypairFromSeed } from "./crypto.ts";
import {
  ENTITY_ID,
  accountNumber,
  buildRequestHeaders,
  buildVerifyAddressMessage,
  formatDatetime,
  readDiscoveryRequestAnswer,
  readDiscoveryResultAnswer,
  readErrorType,
  readIvms101,
  readPubkeyAnswer,
  readResultAnswer,
  readTransferAnswer,
  readVaspsAnswer,
  readVerifyAddressAnswer,
  type DiscoveryRequest,
  type DiscoveryRequestAnswer,
  type DiscoveryResultAnswer,
  type Ivms101Message,
  type Ivms101Payload,
  type PubkeyAnswer,
  type ResultAnswer,
  type StatusUpdateRequest,
  type TransferAnswer,
  type TransferRequest,
  type TxidRequest,
  type VaspPubkey,
  type VaspsAnswer,
  type VerifyAddressAnswer,
  type VerifyAddressRequest,
} from "./wire.ts";
import type { Person } from "../../../domain/ivms101/types.ts";

/** Part 3, Limits: provider_b request timeout 15 seconds, no redirects. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** Answers larger than this are not read (a directory of a few hundred VASPs is far smaller). */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export interface ProviderBFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
  redirect: "manual";
  signal: AbortSignal;
}
/** `globalThis.fetch` fits; the service passes its SSRF-guarded fetch (anything it throws is TRANSPORT_ERROR). */
export type ProviderBFetch = (url: string, init: ProviderBFetchInit) => Promise<Response>;

export interface ProviderBClientOptions {
  /** Provider API origin for the environment (Part 3, Settings of provider_b). */
  apiUrl: string;
  /** `vaspEntityId`: sent as `X-Request-Origin: code:<entityId>`. */
  entityId: string;
  /** `privateKey`: base64 of the 32-byte Ed25519 seed. */
  seedBase64: string;
  fetch: ProviderBFetch;
  timeoutMs?: number;
  /** Clock for `X-Code-Req-Datetime` and key expiry. */
  now?: () => number;
  /** Plain `http://` origins (sandbox, tests). Settings require `https://`. */
  allowHttp?: boolean;
  /** `X-Code-Req-Nonce` source (tests); default a random uint32, never repeated within ~100 s in practice. */
  nonce?: () => number;
}

/**
 * Every call's outcome. `code` is the provider's `errorType`, `HTTP_<status>`, `TRANSPORT_ERROR` (no answer:
 * connection, timeout, redirect refused by the fetch) or `INVALID_RESPONSE` (an answer not of the documented shape,
 * or one not matching the request); for txid and status calls also the `reasonType` of a `result: error`.
 * Error bodies are never kept beyond the `errorType` (Part 3, What the service does, 4).
 */
export type ProviderBResult<T> = { ok: true; status: number; body: T } | { ok: false; code: string; status?: number };

export type ConfigCheck = { ok: true } | { ok: false; kind: "configuration" | "key"; message: string };

/**
 * Format checks of the settings the client uses, for "Invalid CodeVASP configuration: …" and "Invalid CodeVASP key
 * or encrypted payload encoding" (Part 3, Outbound: Connection test). Saving checks nothing; use checks this.
 */
export function checkClientOptions(o: Pick<ProviderBClientOptions, "apiUrl" | "entityId" | "seedBase64" | "allowHttp">): ConfigCheck {
  let url: URL | null = null;
  try {
    url = new URL(o.apiUrl);
  } catch {
    // reported below
  }
  const schemes = o.allowHttp ? ["https:", "http:"] : ["https:"];
  if (!url || !schemes.includes(url.protocol) || url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) {
    return { ok: false, kind: "configuration", message: "apiUrl must be an https:// origin without path, query or credentials" };
  }
  if (!ENTITY_ID.test(o.entityId)) {
    return { ok: false, kind: "configuration", message: "vaspEntityId may hold only letters, digits, _ and -" };
  }
  try {
    keypairFromSeed(o.seedBase64);
  } catch {
    return { ok: false, kind: "key", message: "privateKey must be base64 of a 32-byte Ed25519 seed" };
  }
  return { ok: true };
}

/**
 * The key to encrypt for: among the listed keys not yet expired, the one expiring last; when every key has an
 * expiry in the past, the first listed (the network still lists it, so it is what the VASP holds). CodeVASP's
 * samples write `expiresAt` both with and without `Z`; a zoneless time is read as UTC.
 */
export function pickPubkey(pubkeys: readonly VaspPubkey[], nowMs: number): string | null {
  const expiry = (k: VaspPubkey) => {
    if (!k.expiresAt) return Infinity;
    const text = /[zZ]|[+-]\d{2}:?\d{2}$/.test(k.expiresAt) ? k.expiresAt : `${k.expiresAt}Z`;
    const t = Date.parse(text);
    return Number.isNaN(t) ? Infinity : t;
  };
  const live = pubkeys.filter((k) => expiry(k) > nowMs).sort((a, b) => expiry(b) - expiry(a));
  return (live[0] ?? pubkeys[0])?.pubkey ?? null;
}

/**
 * Part 3, Beneficiary discovery: "the request ID derives from the transfer and destination", so asking again for
 * the same transfer and destination reads the same search. A UUID (version 8, RFC 9562) of SHA-256 over them.
 */
export function discoveryRequestId(transferId: string, destination: { address: string; tag?: string | null; network?: string | null }): string {
  const h = sha256(new TextEncoder().encode(JSON.stringify([transferId, destination.network ?? "", destination.address, destination.tag ?? ""])));
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = Array.from(h.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface AddressCheck {
  currency: string;
  address: string;
  tag?: string | null;
  network?: string;
  /** Sent only when names are to be matched; CodeVASP asks for an empty list otherwise. */
  beneficiaryPersons?: readonly Person[];
}

export interface TransferAuthorization {
  transferId: string;
  currency: string;
  amount: string;
  /** USD value of the amount (Part 3: `tradePrice` with `tradeCurrency` `USD`). */
  tradePrice: string;
  tradeCurrency?: string;
  isExceedingThreshold: boolean;
  address: string;
  tag?: string | null;
  network?: string;
  /** The plaintext IVMS101 (see `buildTransferMessage`); sealed here for the beneficiary VASP's current key. */
  message: Ivms101Payload;
}

export interface SealedOptions {
  /** The beneficiary VASP's key when already known (read from `GET /v1/code/Vasp/{id}/pubkey` otherwise). */
  remotePubKey?: string;
}

export type AddressCheckOutcome = VerifyAddressAnswer & { remotePubKey: string };
/** A transfer answer with its payload opened: `ivms101` is the beneficiary's message (null when denied without one). */
export type TransferOutcome = Omit<TransferAnswer, "payload"> & { ivms101: Ivms101Message | null; remotePubKey: string };

type Raw = ProviderBResult<unknown>;

/**
 * The shared exchange's failures in provider_b's codes: the provider's own `errorType` when its refusal names one,
 * else HTTP_<status>; no answer, and a redirect (Part 3, Outbound: none is followed; like every provider and vendor,
 * a redirect is a transport failure, not the provider's answer), is TRANSPORT_ERROR.
 */
function mapped(r: Exchanged): Raw {
  if (r.ok) return { ok: true, status: r.status, body: r.body };
  switch (r.failure) {
    case "http":
      return { ok: false, code: readErrorType(r.body) || `HTTP_${r.status}`, status: r.status };
    case "too_large":
    case "not_json":
      return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    default:
      return { ok: false, code: "TRANSPORT_ERROR" };
  }
}

export class ProviderBClient {
  readonly entityId: string;
  readonly publicKeyBase64: string;
  private readonly origin: string;
  private readonly seed: Uint8Array;
  private readonly fetchFn: ProviderBFetch;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly nextNonce: () => number;

  /** Throws TypeError when `checkClientOptions` would refuse the options; check first to report it as a value. */
  constructor(o: ProviderBClientOptions) {
    const check = checkClientOptions(o);
    if (!check.ok) throw new TypeError(check.message);
    this.origin = new URL(o.apiUrl).origin;
    this.entityId = o.entityId;
    this.seed = keypairFromSeed(o.seedBase64).seed;
    this.publicKeyBase64 = publicKeyBase64(this.seed);
    this.fetchFn = o.fetch;
    this.timeoutMs = o.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.now = o.now ?? Date.now;
    this.nextNonce = o.nonce ?? (() => crypto.getRandomValues(new Uint32Array(1))[0]!);
  }

  /** `GET /v1/code/vasps`: the directory (also the connection test: Part 3, Outbound). */
  async listVasps(): Promise<ProviderBResult<VaspsAnswer>> {
    return this.read(await this.send("GET", "/v1/code/vasps"), readVaspsAnswer);
  }

  /** `GET /v1/code/Vasp/{id}/pubkey`: current keys, uncached (the directory's may be cached). */
  async getPubkeys(entityId: string): Promise<ProviderBResult<PubkeyAnswer>> {
    return this.read(await this.send("GET", `/v1/code/Vasp/${encodeURIComponent(entityId)}/pubkey`), readPubkeyAnswer);
  }

  /** The key to encrypt for now (see `pickPubkey`); INVALID_RESPONSE when the VASP lists none. */
  async currentPubkey(entityId: string): Promise<ProviderBResult<string>> {
    const r = await this.getPubkeys(entityId);
    if (!r.ok) return r;
    const key = pickPubkey(r.body.pubkeys, this.now());
    return key ? { ok: true, status: r.status, body: key } : { ok: false, code: "INVALID_RESPONSE" };
  }

  /** `POST /v1/code/VerifyAddress/{id}`: does the VASP hold this address? `invalid` is an answer, not an error. */
  async verifyAddress(entityId: string, check: AddressCheck, opts: SealedOptions = {}): Promise<ProviderBResult<AddressCheckOutcome>> {
    const account = accountNumber(check.address, check.tag);
    return this.sendSealed(entityId, `/v1/code/VerifyAddress/${encodeURIComponent(entityId)}`, opts.remotePubKey, (payload): VerifyAddressRequest => ({
      currency: check.currency,
      payload,
      address: check.address,
      ...(check.tag ? { tag: check.tag } : {}),
      ...(check.network ? { network: check.network } : {}),
    }), buildVerifyAddressMessage(account, check.beneficiaryPersons), (raw, key) => {
      const body = readVerifyAddressAnswer(raw);
      return body ? { ...body, remotePubKey: key } : null;
    });
  }

  /**
   * `POST /v1/code/transfer/{id}`: the authorization request. A `verified` answer must carry a payload that opens
   * with our key and the VASP's, and name the same transfer; otherwise INVALID_RESPONSE (Part 3: "an answer not
   * matching the request" fails the attempt).
   */
  async transfer(entityId: string, t: TransferAuthorization, opts: SealedOptions = {}): Promise<ProviderBResult<TransferOutcome>> {
    return this.sendSealed(entityId, `/v1/code/transfer/${encodeURIComponent(entityId)}`, opts.remotePubKey, (payload): TransferRequest => ({
      transferId: t.transferId,
      currency: t.currency,
      amount: t.amount,
      tradePrice: t.tradePrice,
      tradeCurrency: t.tradeCurrency ?? "USD",
      isExceedingThreshold: t.isExceedingThreshold ? "true" : "false",
      payload,
      address: t.address,
      ...(t.tag ? { tag: t.tag } : {}),
      ...(t.network ? { network: t.network } : {}),
    }), t.message, (raw, key) => {
      const body = readTransferAnswer(raw);
      if (!body || (body.transferId !== undefined && body.transferId !== t.transferId)) return null;
      const { payload, ...rest } = body;
      let ivms101: Ivms101Message | null = null;
      if (payload !== undefined) {
        const opened = openPayload(payload, key, this.seed);
        const read = opened.ok ? readIvms101(opened.value) : null;
        if (read?.ok) ivms101 = read.value;
        else if (body.result === "verified") return null;
      }
      if (body.result === "verified" && !ivms101) return null;
      return { ...rest, ivms101, remotePubKey: key };
    });
  }

  /** `POST /v1/code/transfer/{id}/txid`: `result: error` comes back as `{ ok: false, code: <reasonType> }` (e.g. TXID_ALREADY_EXISTS). */
  async reportTxid(entityId: string, r: TxidRequest): Promise<ProviderBResult<ResultAnswer>> {
    const body: TxidRequest = { transferId: r.transferId, txid: r.txid, ...(r.vout ? { vout: r.vout } : {}) };
    return this.normalResult(await this.send("POST", `/v1/code/transfer/${encodeURIComponent(entityId)}/txid`, body), r.transferId);
  }

  /** `PUT /v1/code/transfer/{id}/status` with `canceled`: strict notification, so only `normal` is success. */
  async cancelTransfer(entityId: string, r: { transferId: string; reasonType: string }): Promise<ProviderBResult<ResultAnswer>> {
    const body: StatusUpdateRequest = { transferId: r.transferId, status: "canceled", reasonType: r.reasonType };
    return this.normalResult(await this.send("PUT", `/v1/code/transfer/${encodeURIComponent(entityId)}/status`, body), r.transferId);
  }

  /** `POST /v2/code/VerifyAddress`: starts a search for the VASP holding the address (`address:memo`). */
  async requestDiscovery(d: { currency: string; address: string; tag?: string | null; network?: string; requestId: string }): Promise<ProviderBResult<DiscoveryRequestAnswer>> {
    const body: DiscoveryRequest = {
      currency: d.currency,
      addressNumber: accountNumber(d.address, d.tag),
      ...(d.network ? { network: d.network } : {}),
      requestId: d.requestId,
    };
    return this.read(await this.send("POST", "/v2/code/VerifyAddress", body), readDiscoveryRequestAnswer);
  }

  /** `GET /v2/code/VerifyAddress/{requestId}`: `invalid` + PROCESSING means ask again later (at least 11 s: Part 3, Limits). */
  async discoveryResult(requestId: string): Promise<ProviderBResult<DiscoveryResultAnswer>> {
    return this.read(await this.send("GET", `/v2/code/VerifyAddress/${encodeURIComponent(requestId)}`), readDiscoveryResultAnswer);
  }

  // ------------------------------------------------------------------------------------------

  private read<T>(r: Raw, reader: (v: unknown) => T | null): ProviderBResult<T> {
    if (!r.ok) return r;
    const body = reader(r.body);
    return body === null ? { ok: false, code: "INVALID_RESPONSE", status: r.status } : { ok: true, status: r.status, body };
  }

  private normalResult(r: Raw, transferId: string): ProviderBResult<ResultAnswer> {
    const read = this.read(r, readResultAnswer);
    if (!read.ok) return read;
    if (read.body.transferId !== undefined && read.body.transferId !== transferId) return { ok: false, code: "INVALID_RESPONSE", status: read.status };
    return read.body.result === "normal" ? read : { ok: false, code: read.body.reasonType ?? "UNKNOWN", status: read.status };
  }

  /**
   * Sends a call whose `payload` is sealed for the receiver's key, with that key in `X-Code-Req-Remote-PubKey`.
   * Part 3: "Each request is sent once, and again only when refused with INVALID_RECEIVER_PUBLIC_KEY after
   * re-reading the key."
   */
  private async sendSealed<B, T>(
    entityId: string,
    path: string,
    knownKey: string | undefined,
    build: (payload: string) => B,
    message: Ivms101Payload,
    reader: (raw: unknown, key: string) => T | null,
  ): Promise<ProviderBResult<T>> {
    const attempt = async (key: string): Promise<ProviderBResult<T>> => {
      let payload: string;
      try {
        payload = sealPayload(message, key, this.seed);
      } catch (e) {
        // The directory gave a key that is not an Ed25519 point: the answer was unusable.
        if (e instanceof ProviderBKeyError) return { ok: false, code: "INVALID_RESPONSE" };
        throw e;
      }
      return this.read(await this.send("POST", path, build(payload), key), (raw) => reader(raw, key));
    };
    let key = knownKey;
    if (!key) {
      const k = await this.currentPubkey(entityId);
      if (!k.ok) return k;
      key = k.body;
    }
    const first = await attempt(key);
    if (first.ok || first.code !== "INVALID_RECEIVER_PUBLIC_KEY") return first;
    const reread = await this.currentPubkey(entityId);
    if (!reread.ok) return reread;
    return attempt(reread.body);
  }

  /** One signed exchange: signature over datetime ‖ exact body bytes ‖ nonce (PROVIDERS.md), no redirects, timeout. */
  private async send(method: string, path: string, body?: unknown, remotePubKey?: string): Promise<Raw> {
    const bytes = new TextEncoder().encode(body === undefined ? "" : JSON.stringify(body));
    const datetime = formatDatetime(this.now());
    const nonce = this.nextNonce();
    const headers = buildRequestHeaders({
      entityId: this.entityId,
      publicKeyBase64: this.publicKeyBase64,
      datetime,
      nonce,
      signature: signRequest(this.seed, datetime, bytes, nonce),
      remotePubKey,
      json: body !== undefined,
    });
    const url = this.origin + path;
    return mapped(await exchange(this.fetchFn as ExchangeFetch, { method, url, headers, ...(body === undefined ? {} : { body: bytes }), timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES, errorBody: true }));
  }
}

