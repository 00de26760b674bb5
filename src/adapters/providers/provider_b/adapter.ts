// provider_b outgoing (Part 3 "provider_b transfers → Outgoing", "Beneficiary discovery", Outbound, connection test).
import type { Environment } from "../../../domain/types.ts";
import type { CountryCode } from "../../../domain/ivms101/index.ts";
import type { ActionResult, AdapterContext, DirectoryRead, Discovery, OutgoingTransfer, ProviderAdapter, Submission } from "../types.ts";
import type { TransferCandidate } from "../registry.ts";
import { checkClientOptions, discoveryRequestId, ProviderBClient, type ProviderBFetch } from "./client.ts";
import { accountNumber, buildTransferMessage, fromWirePersons } from "./wire.ts";
import { splitDestination } from "../../../domain/networks/tags.ts";

const NAME = "provider_b";
/** Part 3: the brand word of the stored texts is replaced by the provider's name. */
const failed = (code: string) => `${NAME} request failed (${code})`;

interface Creds {
  apiUrl: string;
  vaspEntityId: string;
  privateKey: string;
  legalName: string;
  country: string;
}

function client(ctx: AdapterContext): ProviderBClient {
  const c = ctx.credentials as unknown as Creds;
  // Plain http only reaches what the SSRF guard allows (CARAVAN_ALLOW_PRIVATE_TARGETS: the sandbox).
  return new ProviderBClient({ apiUrl: c.apiUrl, entityId: c.vaspEntityId, seedBase64: c.privateKey, fetch: ctx.fetch as unknown as ProviderBFetch, allowHttp: true, now: () => ctx.now });
}

function configProblem(ctx: AdapterContext): string | null {
  const c = ctx.credentials as unknown as Creds;
  const check = checkClientOptions({ apiUrl: c.apiUrl, entityId: c.vaspEntityId, seedBase64: c.privateKey, allowHttp: true });
  if (!check.ok) return check.kind === "key" ? `Invalid ${NAME} key or encrypted payload encoding` : `Invalid ${NAME} configuration: ${check.message}`;
  if (!/^[A-Z]{2}$/.test(c.country ?? "")) return `Invalid ${NAME} configuration: country must be two uppercase letters`;
  return null;
}

async function readDirectory(ctx: AdapterContext): Promise<DirectoryRead> {
  const r = await client(ctx).listVasps();
  if (!r.ok) return { ok: false, code: r.code };
  return {
    ok: true,
    fetchedAt: ctx.now,
    vasps: r.body.vasps.map((v) => ({ vaspId: v.vaspEntityId, name: v.vaspName, health: v.health === "up" ? "up" : "down", publicKey: v.pubkeys[0]?.pubkey ?? null })),
  };
}

/** The directory through the connection actor when the service provides it (cached there), else read now. */
const directoryOf = (ctx: AdapterContext) => (ctx.directory ? ctx.directory() : readDirectory(ctx));

export const providerB: ProviderAdapter = {
  name: NAME,

  readDirectory,

  // Part 3, provider_b "Sending capability".
  canCarry(t: TransferCandidate) {
    if (!t.hasOriginatorAddress) return { ok: false, reason: "originatorAddress is required" };
    if (t.beneficiaryPersonCount < 1) return { ok: false, reason: "beneficiary IVMS101 with at least one person is required" };
    return { ok: true };
  },

  async testConnection(_env: Environment, ctx: AdapterContext) {
    const problem = configProblem(ctx);
    if (problem) return { success: false, message: problem, error: problem };
    const r = await client(ctx).listVasps();
    if (!r.ok) return { success: false, message: failed(r.code), error: failed(r.code) };
    return { success: true, message: `Connected: the directory lists ${r.body.vasps.length} VASPs` };
  },

  async discover(t: OutgoingTransfer, ctx: AdapterContext): Promise<Discovery> {
    const problem = configProblem(ctx);
    if (problem) return { kind: "retry", reason: problem };
    const c = client(ctx);
    const dest = splitDestination(t.beneficiaryAddress);
    const requestId = discoveryRequestId(t.id, { address: dest.address, tag: dest.memo, network: t.network });
    const asked = await c.requestDiscovery({ currency: t.asset.toUpperCase(), address: dest.address, tag: dest.memo, network: t.network, requestId });
    if (!asked.ok) return retryable(asked.code, asked.status);
    const r = await c.discoveryResult(requestId);
    if (!r.ok) return retryable(r.code, r.status);
    if (r.body.result === "valid" && r.body.beneficiaryVaspEntityId) {
      const dir = await directoryOf(ctx);
      const vasp = dir.ok ? dir.vasps.find((v) => v.vaspId === r.body.beneficiaryVaspEntityId) : undefined;
      return { kind: "found", vaspId: r.body.beneficiaryVaspEntityId, vaspName: vasp?.name ?? null };
    }
    if (r.body.reasonType === "NOT_FOUND_ADDRESS") return { kind: "not_found" };
    if (r.body.reasonType === "PROCESSING") return { kind: "retry", reason: "discovery pending" };
    // More than one VASP, or any other answer: routing stops (Part 3).
    return { kind: "fatal", reason: failed(r.body.reasonType ?? "INVALID_RESPONSE") };
  },

  async submit(t: OutgoingTransfer, vasp, ctx: AdapterContext): Promise<Submission> {
    const problem = configProblem(ctx);
    if (problem) return { kind: "not_taken", reason: problem };
    if (!t.originatorAddress) return { kind: "not_taken", reason: "originatorAddress is required" };
    if (t.usdValue === null) return { kind: "not_taken", reason: "the amount has no USD valuation" };
    const creds = ctx.credentials as unknown as Creds;
    const c = client(ctx);
    const dir = await directoryOf(ctx);
    if (!dir.ok) return { kind: "not_taken", reason: failed(dir.code) };
    const entry = dir.vasps.find((v) => v.vaspId === vasp.vaspId);
    if (!entry) return { kind: "not_taken", reason: `${NAME}: the beneficiary VASP ${vasp.vaspId} is not in the directory`, vaspNotFound: true };
    if (entry.health !== "up") return { kind: "not_taken", reason: `${NAME}: the beneficiary VASP ${vasp.vaspId} is not healthy` };
    // A transfer ID is reserved: from here on no other provider is tried (Part 3).
    const transferId = crypto.randomUUID();
    const dest = splitDestination(t.beneficiaryAddress);
    const origin = splitDestination(t.originatorAddress);
    const currency = t.asset.toUpperCase();
    const check = await c.verifyAddress(vasp.vaspId, { currency, address: dest.address, tag: dest.memo, network: t.network });
    if (!check.ok) return { kind: "unknown", externalId: transferId, error: failed(check.code) };
    if (check.body.result !== "valid")
      return { kind: "answered", externalId: transferId, theirs: "rejected", reasonType: check.body.reasonType ?? "NOT_FOUND_ADDRESS", vaspId: vasp.vaspId, vaspName: entry.name };
    if (check.body.beneficiaryVaspEntityId && check.body.beneficiaryVaspEntityId !== vasp.vaspId)
      return { kind: "unknown", externalId: transferId, error: failed("INVALID_RESPONSE") };
    const message = buildTransferMessage({
      originatorPersons: t.originatorPersons,
      originatorAccount: accountNumber(origin.address, origin.memo),
      beneficiaryPersons: t.beneficiaryPersons,
      beneficiaryAccount: accountNumber(dest.address, dest.memo),
      originatingVasp: { legalName: creds.legalName, country: creds.country as CountryCode },
    });
    const r = await c.transfer(
      vasp.vaspId,
      {
        transferId,
        currency,
        amount: t.amount,
        tradePrice: t.usdValue,
        tradeCurrency: "USD",
        isExceedingThreshold: t.isExceedingThreshold,
        address: dest.address,
        tag: dest.memo,
        network: t.network,
        message,
      },
      { remotePubKey: check.body.remotePubKey },
    );
    if (!r.ok) return { kind: "unknown", externalId: transferId, error: failed(r.code) };
    if (r.body.result === "denied")
      return { kind: "answered", externalId: transferId, theirs: "rejected", reasonType: r.body.reasonType ?? "UNKNOWN", vaspId: vasp.vaspId, vaspName: entry.name };
    // `verified` must carry the beneficiary's IVMS101 for the address asked about, else the answer does not match.
    const ben = r.body.ivms101?.Beneficiary;
    const account = accountNumber(dest.address, dest.memo);
    if (!ben || !ben.accountNumber.includes(account) || ben.beneficiaryPersons.length === 0)
      return { kind: "unknown", externalId: transferId, error: failed("INVALID_RESPONSE") };
    return { kind: "answered", externalId: transferId, theirs: "accepted", beneficiaryPersons: fromWirePersons(ben.beneficiaryPersons), vaspId: vasp.vaspId, vaspName: entry.name };
  },

  async reportTransaction(t, txHash, ctx): Promise<ActionResult> {
    const problem = configProblem(ctx);
    if (problem) return { ok: false, message: problem };
    const r = await client(ctx).reportTxid(t.vaspId, { transferId: t.externalId, txid: txHash });
    if (!r.ok) return { ok: false, message: failed(r.code), code: r.code };
    return { ok: true };
  },

  async cancel(t, reasonType, ctx): Promise<ActionResult> {
    const problem = configProblem(ctx);
    if (problem) return { ok: false, message: problem };
    const r = await client(ctx).cancelTransfer(t.vaspId, { transferId: t.externalId, reasonType });
    if (!r.ok) return { ok: false, message: failed(r.code), code: r.code };
    return { ok: true };
  },
};

/** Pending, 429, 5xx, no answer: asked again at least 11 s later; any other refusal stops routing (Part 3). */
function retryable(code: string, status?: number): Discovery {
  if (code === "TRANSPORT_ERROR" || status === 429 || (status !== undefined && status >= 500) || code === "HTTP_429" || /^HTTP_5\d\d$/.test(code))
    return { kind: "retry", reason: failed(code) };
  return { kind: "fatal", reason: failed(code) };
}
