// provider_a (Notabene Transact v2) API client: OAuth client credentials from the auth origin with the apiUrl
// as audience, the token cached per connection until shortly before expiry, a 401 retried once with a new token and
// nothing else retried (Part 3, Authentication 2). Outcomes are values; error bodies are never kept.
import { exchange, type ExchangeFetch, type Exchanged } from "../../net/exchange.ts";
import { sha256Hex } from "../../crypto/hash.ts";
import type { ProviderASettings } from "../../../domain/provider_a/settings.ts";
import { readTransfer, type ProviderTx } from "../../../domain/provider_a/transfer.ts";
import { appendBody, createBody, rejectBody, relationshipBody, settleBody, type AppendSides, type CreateInput, type RejectReason } from "../../../domain/provider_a/wire.ts";

/** `fetch`-shaped: the service passes its SSRF-guarded client (15 s, no redirects); anything it throws is TRANSPORT_ERROR. */
export type ProviderAFetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<Response>;

export type Result<T> = { ok: true; status: number; body: T } | { ok: false; code: string; status?: number; path?: string };

/** Told when an answer is not of the published shape: which call, and the field path that failed (never a value). */
export type UnreadableAnswer = (call: string, path: string) => void;

/** A token is renewed this long before the provider says it expires. */
const EARLY_RENEWAL_MS = 60_000;
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Tokens by connection (auth origin, audience, client): one process-wide cache, bounded by the number of connections. */
const tokens = new Map<string, CachedToken>();

export interface DiscoveryAnswer {
  status: string;
  address: string;
  asset: string;
  owner: { did: string; name: string | null } | null;
  custodian: { did: string; name: string | null } | null;
}

/** The shared exchange's failures in provider_a's codes: no answer is TRANSPORT_ERROR, a non-2xx HTTP_<status>. */
function mapped(r: Exchanged): Result<unknown> {
  if (r.ok) return { ok: true, status: r.status, body: r.body === undefined ? null : r.body };
  switch (r.failure) {
    case "http":
      return { ok: false, code: `HTTP_${r.status}`, status: r.status };
    case "too_large":
    case "not_json":
      return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    default:
      return { ok: false, code: "TRANSPORT_ERROR", ...(r.status !== undefined && r.failure !== "redirect" ? { status: r.status } : {}) };
  }
}

export class ProviderAClient {
  constructor(
    private readonly s: ProviderASettings,
    private readonly authUrl: string,
    private readonly fetch: ProviderAFetch,
    private readonly now: () => number,
    private readonly unreadable: UnreadableAnswer = () => {},
  ) {
    this.cacheKey = sha256Hex(`${authUrl}\n${s.apiUrl}\n${s.clientId}\n${s.clientSecret}`);
  }

  /** The token cache's key: the secret is part of the connection (a new secret gets a new token) but kept only as a hash. */
  private readonly cacheKey: string;

  /** A token from the cache, or a new one (client credentials grant). */
  async token(fresh = false): Promise<Result<string>> {
    const cached = tokens.get(this.cacheKey);
    if (!fresh && cached && cached.expiresAt - EARLY_RENEWAL_MS > this.now()) return { ok: true, status: 200, body: cached.token };
    const r = await this.raw("POST", `${this.authUrl.replace(/\/$/, "")}/oauth/token`, null, {
      client_id: this.s.clientId,
      client_secret: this.s.clientSecret,
      grant_type: "client_credentials",
      audience: this.s.apiUrl,
    });
    if (!r.ok) return r;
    const b = r.body as Record<string, unknown> | null;
    if (!b || typeof b.access_token !== "string" || !b.access_token || typeof b.expires_in !== "number" || b.expires_in <= 0) return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    tokens.set(this.cacheKey, { token: b.access_token, expiresAt: this.now() + b.expires_in * 1000 });
    return { ok: true, status: r.status, body: b.access_token };
  }

  private async raw(method: string, url: string, bearer: string | null, body?: unknown): Promise<Result<unknown>> {
    const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
    return mapped(await exchange(this.fetch as ExchangeFetch, { method, url, headers, json: body, maxBytes: MAX_ANSWER_BYTES, allowEmpty: true }));
  }

  /** An API call with the cached token; a 401 is retried once with a new token, nothing else is retried. */
  async call(method: string, path: string, body?: unknown): Promise<Result<unknown>> {
    const t = await this.token();
    if (!t.ok) return t;
    const url = `${this.s.apiUrl}${path}`;
    const first = await this.raw(method, url, t.body, body);
    if (first.ok || first.status !== 401) return first;
    tokens.delete(this.cacheKey);
    const again = await this.token(true);
    if (!again.ok) return again;
    return this.raw(method, url, again.body, body);
  }

  private entity(): string {
    return `/entities/${encodeURIComponent(this.s.vaspDid)}`;
  }

  async lookupEntity(did: string): Promise<Result<{ did: string; name: string | null }>> {
    const r = await this.call("GET", `/entities/${encodeURIComponent(did)}`);
    if (!r.ok) return r;
    const b = r.body as Record<string, unknown> | null;
    if (!b || typeof b.did !== "string") return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    return { ok: true, status: r.status, body: { did: b.did, name: typeof b.name === "string" ? b.name : null } };
  }

  async discover(asset: string, account: string): Promise<Result<DiscoveryAnswer>> {
    const q = new URLSearchParams({ asset, address: account });
    const r = await this.call("GET", `${this.entity()}/addresses/discover?${q}`);
    if (!r.ok) return r;
    const b = r.body as Record<string, unknown> | null;
    const party = (v: unknown) => {
      if (v === undefined || v === null) return null;
      const p = v as Record<string, unknown>;
      return typeof p.did === "string" ? { did: p.did, name: typeof p.name === "string" ? p.name : null } : undefined;
    };
    if (!b || typeof b.status !== "string" || typeof b.address !== "string" || typeof b.asset !== "string") return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    const owner = party(b.owner);
    const custodian = party(b.custodian);
    if (owner === undefined || custodian === undefined) return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    return { ok: true, status: r.status, body: { status: b.status, address: b.address, asset: b.asset, owner, custodian } };
  }

  /** A call answered `{ "transfer": { ... } }` (create 201, read 200). */
  private async tx(call: string, method: string, path: string, body?: unknown): Promise<Result<ProviderTx>> {
    const r = await this.call(method, path, body);
    if (!r.ok) return r;
    const read = readTransfer(r.body);
    if (read.ok) return { ok: true, status: r.status, body: read.tx };
    this.unreadable(call, read.path);
    return { ok: false, code: "INVALID_RESPONSE", status: r.status, path: read.path };
  }

  /** A call the provider accepts with a message (`202 { message }`, reject `200`): only the 2xx counts. */
  private async accepted(method: string, path: string, body: unknown): Promise<Result<null>> {
    const r = await this.call(method, path, body);
    return r.ok ? { ok: true, status: r.status, body: null } : r;
  }

  private txPath(id: string, action?: string): string {
    return `${this.entity()}/tx/${encodeURIComponent(id)}${action ? `/${action}` : ""}`;
  }

  createTx(i: Omit<CreateInput, "ourDid">): Promise<Result<ProviderTx>> {
    return this.tx("create", "POST", `${this.entity()}/tx`, createBody({ ...i, ourDid: this.s.vaspDid }));
  }

  /** Read with decryption requested from the provider (Part 3, Data handling). */
  getTx(id: string): Promise<Result<ProviderTx>> {
    return this.tx("read", "GET", `${this.txPath(id)}?decrypt=true`);
  }

  /** IVMS101 appended (2023 edition) to the transfer; the parties are the transfer's own. */
  append(tx: Pick<ProviderTx, "id" | "originatorDid" | "beneficiaryDid">, sides: AppendSides): Promise<Result<null>> {
    return this.accepted("POST", `${this.entity()}/transfers/${encodeURIComponent(tx.id)}/append`, appendBody({ originator: tx.originatorDid, beneficiary: tx.beneficiaryDid }, sides));
  }

  authorize(id: string): Promise<Result<null>> {
    return this.accepted("POST", this.txPath(id, "authorize"), {});
  }

  reject(id: string, reason: RejectReason): Promise<Result<null>> {
    return this.accepted("POST", this.txPath(id, "reject"), rejectBody(reason));
  }

  settle(id: string, settlementId: string): Promise<Result<null>> {
    return this.accepted("POST", this.txPath(id, "settle"), settleBody(settlementId));
  }

  /**
   * Incoming: confirms a transfer check (Notabene's `checks/beneficiary-name-matching` once the beneficiary named by
   * the originating VASP matched our customer, `checks/internal-checks` once our checks of the originator's data
   * passed); the beneficiary's authorization waits for them.
   */
  check(id: string, which: "beneficiary-name-matching" | "internal-checks"): Promise<Result<null>> {
    return this.accepted("POST", this.txPath(id, `checks/${which}`), {});
  }

  /** Confirms that an address belongs to this entity (incoming step 4): a relationship from the address to the entity. */
  confirmRelationship(assetId: string, address: string): Promise<Result<null>> {
    return this.accepted("POST", `${this.entity()}/relationships`, relationshipBody(assetId, address, this.s.vaspDid));
  }
}

/** Forgets cached tokens (tests). */
export function clearTokenCache(): void {
  tokens.clear();
}
