// provider_e (Sygna Bridge) adapter: connection test, the signed directory, the beneficiary VASP search (eight
// candidates at a time for up to 20 s), and the outgoing permission request with its checks in Part 3's order.
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { parseDiscoveryCodes } from "../../../domain/providers/catalog.ts";
import { beneficiaryGroupOk, DIRECTORY_MAX_AGE_MS, DISCOVERY_BUDGET_MS, DISCOVERY_PARALLEL, MAX_CANDIDATES, MIN_EXPIRY_MS, permissionToken } from "../../../domain/provider_e/rules.ts";
import type { AdapterContext, DirectoryRead, Discovery, OutgoingTransfer, ProviderAdapter, Submission } from "../types.ts";
import type { TransferCandidate } from "../registry.ts";
import { encryptObject, isPrivateKeyHex, isPublicKeyHex, publicKeyOf, signObject, verifyObject } from "./crypto.ts";
import { isRetryable, ProviderEClient, type Result } from "./client.ts";
import { buildTransaction, DEFAULT_BASE, extraOf, type Currency, type DirectoryAnswer, type PrivateInfo, type StatusAnswer } from "./wire.ts";
import { splitDestination } from "../../../domain/networks/tags.ts";

export const NAME = "provider_e";
/** Part 3: "Sygna operation failed (<code>)" with the brand word replaced by the provider's name. */
export const failed = (code: string) => `${NAME} operation failed (${code})`;

export interface Creds {
  apiKey: string;
  vaspCode: string;
  privateKey: string;
  bridgePublicKey: string;
  callbackBaseUrl: string;
  discoveryVaspCodes?: string;
}

/** What the adapter reads from the service (the verified identity, the company profile, the provider's ID). */
export interface ProviderELookups {
  /** The originator customer's verified identity persons, or null when it is not verified. */
  originatorIdentity(companyId: string, env: Environment, transferId: string): Promise<Person[] | null>;
  /** The company profile as originating VASP, or null when incomplete (legal name and country required). */
  companyVasp(companyId: string): Promise<{ legalName: string; country: string; lei: string | null } | null>;
  providerId(companyId: string): Promise<string | null>;
}

export interface ProviderEOptions {
  baseUrl: { test: string; live: string };
  lookups: ProviderELookups;
}

export function baseUrlsFromEnv(env: Record<string, string | undefined>): { test: string; live: string } {
  return { test: env.CARAVAN_PROVIDER_E_TEST_URL || DEFAULT_BASE.test, live: env.CARAVAN_PROVIDER_E_LIVE_URL || DEFAULT_BASE.live };
}

export const credsOf = (ctx: AdapterContext) => ctx.credentials as unknown as Creds;

export function clientOf(base: { test: string; live: string }, env: Environment, ctx: AdapterContext): ProviderEClient {
  return new ProviderEClient(base[env], credsOf(ctx).apiKey, ctx.fetch);
}

/** Format problems of the saved values (checked on save too; re-checked on use). */
export function configProblem(ctx: AdapterContext): string | null {
  const c = credsOf(ctx);
  if (!c.apiKey) return "apiKey is missing";
  if (!isPrivateKeyHex(c.privateKey)) return "privateKey is not a secp256k1 private key";
  if (!isPublicKeyHex(c.bridgePublicKey)) return "bridgePublicKey is not an uncompressed secp256k1 public key";
  return null;
}

/** The directory's signed date in milliseconds (a seconds value is read as such). */
const datedAt = (d: DirectoryAnswer): number => (d.timestamp < 1e12 ? d.timestamp * 1000 : d.timestamp);

/** The directory, verified: signed with `bridgePublicKey`, dated within five minutes, listing us with our key. */
export function checkDirectory(d: DirectoryAnswer, ctx: AdapterContext, now: number): string | null {
  const c = credsOf(ctx);
  if (!verifyObject(d, c.bridgePublicKey)) return "DIRECTORY_SIGNATURE_INVALID";
  // `timestamp` in milliseconds (a seconds value is read as such).
  if (Math.abs(now - datedAt(d)) > DIRECTORY_MAX_AGE_MS) return "DIRECTORY_STALE";
  const self = d.vasp_data.find((v) => v.vasp_code === c.vaspCode);
  if (!self || self.vasp_pubkey.toLowerCase() !== publicKeyOf(c.privateKey)) return "DIRECTORY_SELF_MISMATCH";
  return null;
}

async function readVerifiedDirectory(base: { test: string; live: string }, env: Environment, ctx: AdapterContext): Promise<Result<DirectoryAnswer>> {
  const r = await clientOf(base, env, ctx).directory();
  if (!r.ok) return r;
  const bad = checkDirectory(r.body, ctx, ctx.now);
  return bad ? { ok: false, code: bad, status: 200 } : r;
}

/** The verified directory as the connection actor keeps it: each VASP's code, name and key (Bridge lists no health). */
async function readDirectoryEntries(base: { test: string; live: string }, env: Environment, ctx: AdapterContext, now: number): Promise<DirectoryRead> {
  const r = await clientOf(base, env, ctx).directory();
  if (!r.ok) return { ok: false, code: r.code };
  const bad = checkDirectory(r.body, ctx, now);
  if (bad) return { ok: false, code: bad };
  return { ok: true, fetchedAt: now, datedAt: datedAt(r.body), vasps: r.body.vasp_data.map((v) => ({ vaspId: v.vasp_code, name: v.vasp_name, health: "up", publicKey: v.vasp_pubkey })) };
}

/**
 * The verified directory: every read but the connection test's goes through the connection's actor when the service
 * provides it (its copy is read and verified once per fetch, and fetched at most once a minute; `refresh` fetches it
 * again and keeps the new copy), else it is read and verified here (outside the service). In the provider's own shape
 * for the steps that use it; a refusal keeps its HTTP status (`HTTP_<status>`).
 */
async function directoryFor(base: { test: string; live: string }, env: Environment, ctx: AdapterContext, now: number, refresh: boolean): Promise<Result<DirectoryAnswer>> {
  let read = ctx.directory ? await ctx.directory({ refresh }) : await readDirectoryEntries(base, env, ctx, now);
  // A kept copy must still be dated within five minutes when it is used (Part 3, search step 2), not only when fetched.
  if (ctx.directory && read.ok && !refresh && (read.datedAt === undefined || now - read.datedAt > DIRECTORY_MAX_AGE_MS)) read = await ctx.directory({ refresh: true });
  if (!read.ok) {
    const status = /^HTTP_(\d{3})$/.exec(read.code)?.[1];
    return { ok: false, code: read.code, ...(status ? { status: Number(status) } : {}) };
  }
  return { ok: true, body: { timestamp: read.fetchedAt, signature: "", vasp_data: read.vasps.map((v) => ({ vasp_code: v.vaspId, vasp_name: v.name, vasp_pubkey: v.publicKey ?? "" })) } };
}

/** A directory that could not be read: no answer, 429 or 5xx is asked again; an unverifiable one fails the search. */
const fromDirectory = (code: string): Discovery => (code === "TRANSPORT_ERROR" || code === "HTTP_429" || /^HTTP_5\d\d$/.test(code) ? { kind: "retry", reason: failed(code) } : fatal(code));

/** Exactly one active currency for the asset on the network (Part 3, search step 1); the network is the platform's. */
export function currencyFor(list: Currency[], asset: string, network: string): Currency | "none" | "ambiguous" {
  const m = list.filter((c) => c.is_active && c.currency_symbol.toUpperCase() === asset.toUpperCase() && (c.network ?? "") === network.toLowerCase());
  return m.length === 1 ? m[0] : m.length === 0 ? "none" : "ambiguous";
}

/** Part 3, search step 3: candidates from the directory (minus us), or `discoveryVaspCodes` (each must be in it). */
export function candidatesOf(d: DirectoryAnswer, c: Creds): { ok: true; codes: string[] } | { ok: false; reason: string } {
  const others = d.vasp_data.filter((v) => v.vasp_code !== c.vaspCode);
  const list = parseDiscoveryCodes(c.discoveryVaspCodes);
  if (!list.ok) return { ok: false, reason: "INVALID_CONFIGURATION" };
  if (list.codes === "*") {
    if (others.length > MAX_CANDIDATES) return { ok: false, reason: "DISCOVERY_ALLOWLIST_REQUIRED" };
    return { ok: true, codes: others.map((v) => v.vasp_code) };
  }
  const known = new Set(others.map((v) => v.vasp_code));
  const missing = list.codes.filter((x) => !known.has(x));
  if (missing.length) return { ok: false, reason: "UNKNOWN_PEER" };
  return { ok: true, codes: list.codes };
}

/** The signed question to one candidate, and whether its answer counts (signed with its directory key, same VASP and address). */
function question(c: Creds, vaspCode: string, currency: Currency, address: string, memo: string | null, now: number) {
  return signObject({ originator_vasp_code: c.vaspCode, vasp_code: vaspCode, currency_id: currency.currency_id, addrs: [{ address, addr_extra_info: extraOf(memo, currency) }], data_dt: new Date(now).toISOString() }, c.privateKey);
}

type Asked = "confirmed" | "denied" | "unanswered";

async function ask(client: ProviderEClient, c: Creds, d: DirectoryAnswer, code: string, currency: Currency, address: string, memo: string | null, now: number, signal: AbortSignal): Promise<Asked> {
  const r = await client.askAddress(question(c, code, currency, address, memo, now), signal);
  if (!r.ok) return "unanswered";
  const key = d.vasp_data.find((v) => v.vasp_code === code)?.vasp_pubkey;
  const a = r.body;
  // An answer counts only when signed with the candidate's directory key and naming the same VASP and address.
  if (!key || !verifyObject(a, key) || a.vasp_code !== code || a.addrs.length !== 1 || a.addrs[0].address !== address) return "unanswered";
  return a.is_valid ? "confirmed" : "denied";
}

/** Eight at a time, until every candidate answered or the 20 s budget is spent. */
async function askAll(client: ProviderEClient, c: Creds, d: DirectoryAnswer, codes: string[], currency: Currency, address: string, memo: string | null, now: number) {
  const results = new Map<string, Asked>();
  const deadline = Date.now() + DISCOVERY_BUDGET_MS;
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), DISCOVERY_BUDGET_MS);
  let next = 0;
  const worker = async () => {
    // The budget's abort and the deadline both end the round: no question leaves after it.
    while (next < codes.length && !budget.signal.aborted && Date.now() < deadline) {
      const code = codes[next++];
      results.set(code, await ask(client, c, d, code, currency, address, memo, now, budget.signal));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(DISCOVERY_PARALLEL, codes.length) }, worker));
  } finally {
    clearTimeout(timer);
  }
  return { confirmed: codes.filter((x) => results.get(x) === "confirmed"), unanswered: codes.filter((x) => results.get(x) !== "confirmed" && results.get(x) !== "denied") };
}

const fatal = (reason: string): Discovery => ({ kind: "fatal", reason: failed(reason) });
const fromRead = (r: { code: string; status?: number }): Discovery => (isRetryable(r) ? { kind: "retry", reason: failed(r.code) } : fatal(r.code));

export function providerE(o: ProviderEOptions): ProviderAdapter & { readonly options: ProviderEOptions } {
  const base = o.baseUrl;

  return {
    name: NAME,
    options: o,

    // Part 3: "a transfer with originatorAddress and a beneficiary with at least one person".
    async readDirectory(ctx: AdapterContext): Promise<DirectoryRead> {
      const problem = configProblem(ctx);
      if (problem) return { ok: false, code: `Invalid ${NAME} configuration: ${problem}` };
      // The address differs per environment: a context that does not say which reads nothing.
      if (!ctx.environment) return { ok: false, code: "NOT_CONFIGURED" };
      return readDirectoryEntries(base, ctx.environment, ctx, Date.now());
    },

    canCarry(t: TransferCandidate) {
      if (!t.hasOriginatorAddress) return { ok: false, reason: "originatorAddress is required" };
      if (t.beneficiaryPersonCount < 1) return { ok: false, reason: "beneficiary IVMS101 with at least one person is required" };
      return { ok: true };
    },

    async testConnection(env: Environment, ctx: AdapterContext) {
      const problem = configProblem(ctx);
      if (problem) return { success: false, message: `Invalid ${NAME} configuration: ${problem}`, error: `Invalid ${NAME} configuration: ${problem}` };
      const r = await readVerifiedDirectory(base, env, ctx);
      if (!r.ok) return { success: false, message: failed(r.code), error: failed(r.code) };
      return { success: true, message: `Connected: the signed directory lists ${r.body.vasp_data.length} VASPs, including ${credsOf(ctx).vaspCode} with this key` };
    },

    async discover(t: OutgoingTransfer, ctx: AdapterContext): Promise<Discovery> {
      const problem = configProblem(ctx);
      if (problem) return { kind: "retry", reason: `Invalid ${NAME} configuration: ${problem}` };
      const c = credsOf(ctx);
      const client = clientOf(base, t.environment, ctx);
      // (1) exactly one currency for the asset on the network.
      const cur = await client.currencies();
      if (!cur.ok) return fromRead(cur);
      const currency = currencyFor(cur.body, t.asset, t.network);
      if (currency === "none") return fatal("UNSUPPORTED_CURRENCY");
      if (currency === "ambiguous") return fatal("AMBIGUOUS_CURRENCY");
      // (2) the signed, fresh directory listing us with our key, as the connection's actor keeps it (fetched and
      // verified at most once a minute, so dated within five minutes), for this search and the submission that follows.
      const dir = await directoryFor(base, t.environment, ctx, Date.now(), false);
      if (!dir.ok) return fromDirectory(dir.code);
      // (3) candidates.
      const cands = candidatesOf(dir.body, c);
      if (!cands.ok) return fatal(cands.reason);
      // (4) ask, eight at a time, up to 20 s.
      const dest = splitDestination(t.beneficiaryAddress);
      const asked = await askAll(client, c, dir.body, cands.codes, currency, dest.address, dest.memo, Date.now());
      // (5) two fail the search; one is the VASP; none is no VASP (once every candidate answered).
      if (asked.confirmed.length > 1) return fatal("DISCOVERY_AMBIGUOUS");
      if (asked.unanswered.length > 0) return { kind: "retry", reason: failed(`NO_ANSWER:${asked.unanswered.length}`) };
      if (asked.confirmed.length === 0) return { kind: "not_found" };
      const v = dir.body.vasp_data.find((x) => x.vasp_code === asked.confirmed[0])!;
      return { kind: "found", vaspId: v.vasp_code, vaspName: v.vasp_name || null };
    },

    async submit(t: OutgoingTransfer, vasp, ctx: AdapterContext): Promise<Submission> {
      const now = Date.now();
      const checked = await checkOutgoing(o, t, vasp.vaspId, ctx, now);
      if (!checked.ok) return checked.refused;
      const r = checked.ready;
      // Built and signed; from here on the request is reserved: no other provider, a failure is submission_unknown.
      const { data, callback, transaction } = permissionRequestOf(t, r, now);
      const sent = await r.client.permissionRequest({ data, callback });
      if (!sent.ok) return { kind: "unknown", externalId: null, error: failed(sent.code) };
      const transferId = sent.body.transfer_id;
      if (!/^[0-9a-f]{64}$/.test(transferId)) return { kind: "unknown", externalId: null, error: failed("INVALID_RESPONSE") };
      // The unsigned answer is taken only when the signed status matches what was sent.
      const st = await readSignedStatus(r.client, r.c, transferId);
      if (!st.ok) return { kind: "unknown", externalId: transferId, error: failed(st.code) };
      const d = st.body.transferData;
      if (d.permission_request_data_signature !== data.signature || JSON.stringify(d.transaction) !== JSON.stringify(transaction))
        return { kind: "unknown", externalId: transferId, error: failed("STATUS_MISMATCH") };
      return { kind: "taken", externalId: transferId, vaspId: r.peer.vasp_code, vaspName: r.peer.vasp_name || null };
    },
  };
}

/** What the permission request is built from, once every outgoing check passed. */
interface Ready {
  c: Creds;
  client: ProviderEClient;
  currency: Currency;
  peer: DirectoryAnswer["vasp_data"][number];
  dest: { address: string; memo: string | null };
  identity: Person[];
  company: { legalName: string; country: string; lei: string | null };
  expiresAt: number;
  providerId: string;
}

/** Part 3, the outgoing checks in their order, each with its code; any refusal leaves the transfer to another provider. */
async function checkOutgoing(o: ProviderEOptions, t: OutgoingTransfer, vaspId: string, ctx: AdapterContext, now: number): Promise<{ ok: true; ready: Ready } | { ok: false; refused: Submission }> {
  const notTaken = (reason: string, vaspNotFound = false) => ({ ok: false as const, refused: { kind: "not_taken" as const, reason, vaspNotFound } });
  const problem = configProblem(ctx);
  if (problem) return notTaken(`Invalid ${NAME} configuration: ${problem}`);
  const c = credsOf(ctx);
  const client = clientOf(o.baseUrl, t.environment, ctx);
  if (!t.originatorAddress) return notTaken("INVALID_OUTGOING_TRANSFER");
  const cur = await client.currencies();
  if (!cur.ok) return notTaken(failed(cur.code));
  const currency = currencyFor(cur.body, t.asset, t.network);
  if (typeof currency === "string") return notTaken(failed("UNSUPPORTED_CURRENCY"));
  // The directory the search used, as the connection's actor keeps it (fetched again when over a minute old).
  const dir = await directoryFor(o.baseUrl, t.environment, ctx, now, false);
  if (!dir.ok) return notTaken(failed(dir.code));
  const peer = dir.body.vasp_data.find((v) => v.vasp_code === vaspId);
  if (!peer || peer.vasp_code === c.vaspCode) return notTaken("UNKNOWN_PEER", true);
  const list = parseDiscoveryCodes(c.discoveryVaspCodes);
  if (list.ok && list.codes !== "*" && !list.codes.includes(peer.vasp_code)) return notTaken("PEER_NOT_ALLOWLISTED");
  const dest = splitDestination(t.beneficiaryAddress);
  const again = await ask(client, c, dir.body, peer.vasp_code, currency, dest.address, dest.memo, now, AbortSignal.timeout(DISCOVERY_BUDGET_MS));
  if (again !== "confirmed") return notTaken("ADDRESS_NOT_OWNED");
  const identity = await o.lookups.originatorIdentity(t.companyId, t.environment, t.id);
  if (!identity || identity.length === 0) return notTaken("VERIFIED_ORIGINATOR_REQUIRED");
  if (!beneficiaryGroupOk(t.beneficiaryPersons)) return notTaken("BENEFICIARY_IDENTITY_REQUIRED");
  const company = await o.lookups.companyVasp(t.companyId);
  if (!company) return notTaken("COMPANY_PROFILE_INCOMPLETE");
  const expiresAt = t.expiresAt ? Date.parse(t.expiresAt) : NaN;
  if (!Number.isFinite(expiresAt) || expiresAt - now < MIN_EXPIRY_MS) return notTaken("TRANSFER_EXPIRY_TOO_SOON");
  const providerId = await o.lookups.providerId(t.companyId);
  if (!providerId) return notTaken(`${NAME} is not configured`);
  return { ok: true, ready: { c, client, currency, peer, dest, identity, company, expiresAt, providerId } };
}

/** The signed permission request: IVMS101 sealed for the beneficiary VASP's key, the transaction, and the signed callback. */
function permissionRequestOf(t: OutgoingTransfer, r: Ready, now: number) {
  const { c, currency, peer, dest, identity, company, expiresAt, providerId } = r;
  const origin = splitDestination(t.originatorAddress!);
  const info: PrivateInfo = {
    originator: { originatorPersons: identity, accountNumber: [origin.address] },
    beneficiary: { beneficiaryPersons: t.beneficiaryPersons, accountNumber: [dest.memo ? `${dest.address}:${dest.memo}` : dest.address] },
    originatingVASP: {
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: company.legalName, legalPersonNameIdentifierType: "LEGL" }] },
          countryOfRegistration: company.country as never,
          ...(company.lei ? { nationalIdentification: { nationalIdentifier: company.lei, nationalIdentifierType: "LEIX" as const } } : {}),
        },
      } as Person,
    },
  };
  // Sygna Bridge v2: nested VASP sides; the provider's currency ID names the coin and its platform.
  const transaction = buildTransaction({
    originatorCode: c.vaspCode,
    originatorAddress: origin.address,
    beneficiaryCode: peer.vasp_code,
    beneficiaryAddress: dest.address,
    beneficiaryExtra: extraOf(dest.memo, currency),
    currencyId: currency.currency_id,
    amount: t.amount,
  });
  const data = signObject(
    {
      private_info: encryptObject(info, peer.vasp_pubkey),
      transaction,
      data_dt: new Date(now).toISOString(),
      expire_date: expiresAt,
      need_validate_addr: true,
      forced_sending_when_VASP_is_not_healthy: false,
    },
    c.privateKey,
  );
  const callbackUrl = `${c.callbackBaseUrl.replace(/\/+$/, "")}/api/system/trp/provider_e/${t.environment}/${encodeURIComponent(providerId)}/permission?transfer=${encodeURIComponent(t.id)}&token=${permissionToken(c.privateKey, t.id)}`;
  const callback = signObject({ callback_url: callbackUrl }, c.privateKey);
  return { data, callback, transaction };
}

/** The provider's status of a transfer, signed with `bridgePublicKey` (INVALID_SIGNATURE otherwise). */
export async function readSignedStatus(client: ProviderEClient, c: Creds, transferId: string): Promise<Result<StatusAnswer>> {
  const r = await client.status(transferId);
  if (!r.ok) return r;
  if (!verifyObject(r.body, c.bridgePublicKey)) return { ok: false, code: "STATUS_SIGNATURE_INVALID", status: 200 };
  if (r.body.transferData.transfer_id !== transferId) return { ok: false, code: "STATUS_MISMATCH", status: 200 };
  return r;
}

/**
 * The directory entry (key) of a VASP, from the verified directory the connection's actor keeps. A VASP its copy does
 * not list (one added since it was fetched) is looked up once more in a fresh copy.
 */
export async function directoryKey(base: { test: string; live: string }, env: Environment, ctx: AdapterContext, vaspCode: string): Promise<Result<{ key: string; name: string }>> {
  const find = (d: DirectoryAnswer) => d.vasp_data.find((x) => x.vasp_code === vaspCode);
  let r = await directoryFor(base, env, ctx, Date.now(), false);
  if (r.ok && !find(r.body) && ctx.directory) r = await directoryFor(base, env, ctx, Date.now(), true);
  if (!r.ok) return r;
  const v = find(r.body);
  return v ? { ok: true, body: { key: v.vasp_pubkey, name: v.vasp_name } } : { ok: false, code: "UNKNOWN_PEER", status: 200 };
}
