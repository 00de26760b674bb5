// provider_d (TRP v3, docs/providers/provider_d.md): a transfer whose beneficiaryAddress is a Travel Address of a
// known counterparty, or a chain address a known counterparty approved before (sent to its inquiryUrl). Discovery
// decodes the address and finds the counterparty by its endpoint (or by that earlier approval); the submission is the
// inquiry over mutual TLS, answered approved (the chain address and the confirmation callback), rejected, or
// acknowledged (the decision comes to our callback later). A peer refusing our api-version is asked again once with
// the best 3.x version it names.
import { randomUUID } from "node:crypto";
import type { Environment } from "../../../domain/types.ts";
import type { Network } from "../../../domain/networks/index.ts";
import { canonicalAddress } from "../../../domain/wallets.ts";
import { decodeTravelAddress, looksLikeTravelAddress } from "../../../domain/provider_d/travel-address.ts";
import { counterpartyForUrl, readProviderDConfig, type Counterparty, type ProviderDConfig } from "../../../domain/provider_d/settings.ts";
import { acceptsApiVersion, readResolution, TRP_API_VERSION, writeInquiry } from "../../../domain/provider_d/wire.ts";
import { callbackToken } from "../../../domain/provider_d/tokens.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import type { AdapterContext, Discovery, OutgoingTransfer, ProviderAdapter, Submission, TransferCandidate } from "../types.ts";
import { mapped, trpCall } from "./client.ts";
import { providerDConnectionTest } from "./connection-test.ts";
import type { ExchangeFetch } from "../../net/exchange.ts";

export const CALLBACK_PATH = "/api/system/trp/provider_d";

export interface ProviderDOptions {
  /** The key of provider_d's tokens (derived from the master key for this purpose). */
  tokenKey: Uint8Array;
  /** The company's provider ID (on our callback path). */
  providerId(companyId: string): Promise<string | null>;
  /** The VASP ID that approved this chain address in an earlier outgoing provider_d transfer of the company. */
  knownBeneficiary?(companyId: string, env: Environment, network: string, address: string): Promise<string | null>;
}

/** The SLIP-0044 coin type of a native asset (CAIP-19 `…/slip44:<n>`); null for a token. */
export function slip44Of(assetId: string): number | null {
  const m = /\/slip44:(\d{1,10})$/.exec(assetId);
  return m ? Number(m[1]) : null;
}

/** Our callback URL for one transfer: the provider_d path with the kind of callback and its token in the query. */
export function callbackUrl(config: ProviderDConfig, env: Environment, providerId: string, kind: "resolution" | "confirmation", token: string): string {
  return `${config.baseUrl}${CALLBACK_PATH}/${env}/${providerId}?${kind}=${encodeURIComponent(token)}`;
}

const legalPersonVasp = (name: string, lei: string | null) => ({
  legalPerson: {
    name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: "LEGL" }] },
    ...(lei ? { nationalIdentification: { nationalIdentifier: lei, nationalIdentifierType: "LEIX" } } : {}),
  },
});

export function inquiryIvms(config: ProviderDConfig, cp: Counterparty | null, t: { originatorPersons: Person[]; beneficiaryPersons: Person[]; originatorAddress: string | null }, beneficiaryAccount: string | null = null) {
  return {
    originator: { originatorPersons: t.originatorPersons, ...(t.originatorAddress ? { accountNumber: [t.originatorAddress] } : {}) },
    // Without a Travel Address the inquiry URL names no account: the chain address names the beneficiary's.
    beneficiary: { beneficiaryPersons: t.beneficiaryPersons, ...(beneficiaryAccount ? { accountNumber: [beneficiaryAccount] } : {}) },
    originatingVASP: { originatingVASP: legalPersonVasp(config.legalName, config.lei) },
    ...(cp ? { beneficiaryVASP: { beneficiaryVASP: legalPersonVasp(cp.name, cp.lei) } } : {}),
  };
}

/** The versions a refusal names (`supported: [...]`, or the text "supported: a, b"), best first, 3.x only. */
export function versionsNamed(body: unknown): string[] {
  const rec = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  let list: string[] = [];
  if (Array.isArray(rec.supported)) list = rec.supported.filter((x): x is string => typeof x === "string");
  else if (typeof rec.error === "string" || typeof rec.message === "string") list = String(rec.error ?? rec.message).match(/\b\d+\.\d+(?:\.\d+)?\b/g) ?? [];
  const cmp = (a: string, b: string) => {
    const pa = a.split(".").map(Number), pb = b.split(".").map(Number);
    for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pb[i] ?? 0) - (pa[i] ?? 0);
    return 0;
  };
  return [...new Set(list.filter(acceptsApiVersion))].sort(cmp);
}

export const vaspIdOf = (cp: Counterparty) => cp.lei ?? `trp:${cp.fingerprint.slice(0, 16)}`;

/**
 * Where the inquiry goes: the Travel Address's URL and its counterparty, or, for a chain address, the inquiry endpoint
 * of the counterparty that approved that address before. `travelAddress` false means the latter.
 */
type Target = { url: string; cp: Counterparty; travelAddress: boolean } | { none: "unknown" | "no_inquiry_url" };

export function providerD(o: ProviderDOptions): ProviderAdapter {
  const configOf = (ctx: AdapterContext) => readProviderDConfig(ctx.credentials, ctx.now);
  async function targetOf(config: ProviderDConfig, t: OutgoingTransfer): Promise<Target> {
    // Text that looks like a Travel Address but does not decode is a chain address (a base58 one may begin with `ta`).
    const ta = looksLikeTravelAddress(t.beneficiaryAddress) ? decodeTravelAddress(t.beneficiaryAddress) : null;
    if (ta?.ok) {
      const cp = counterpartyForUrl(config, ta.url);
      return cp ? { url: ta.url, cp, travelAddress: true } : { none: "unknown" };
    }
    const vaspId = (await o.knownBeneficiary?.(t.companyId, t.environment, t.network, t.beneficiaryAddress)) ?? null;
    const cp = vaspId === null ? undefined : config.counterparties.find((c) => vaspIdOf(c) === vaspId);
    if (!cp) return { none: "unknown" };
    return cp.inquiryUrl ? { url: cp.inquiryUrl, cp, travelAddress: false } : { none: "no_inquiry_url" };
  }
  return {
    name: "provider_d",

    canCarry(t: TransferCandidate) {
      if (t.beneficiaryPersonCount < 1) return { ok: false, reason: "beneficiary IVMS101 with at least one person is required" };
      // A chain address is carried only to a counterparty that approved it before (found at discovery, else not_found).
      if (slip44Of(t.assetId) === null) return { ok: false, reason: "only a network's native asset is carried (SLIP-0044 coin type)" };
      return { ok: true };
    },

    testConnection(_env: Environment, ctx: AdapterContext) {
      return providerDConnectionTest(ctx.credentials, ctx.fetch as unknown as ExchangeFetch, ctx.now);
    },

    async discover(t: OutgoingTransfer, ctx: AdapterContext): Promise<Discovery> {
      const read = configOf(ctx);
      if (!read.ok) return { kind: "retry", reason: "Invalid provider_d configuration" };
      const target = await targetOf(read.config, t);
      if ("none" in target) return { kind: "not_found" };
      return { kind: "found", vaspId: vaspIdOf(target.cp), vaspName: target.cp.name };
    },

    async submit(t: OutgoingTransfer, _vasp, ctx: AdapterContext): Promise<Submission> {
      const read = configOf(ctx);
      if (!read.ok) return { kind: "not_taken", reason: "Invalid provider_d configuration" };
      const config = read.config;
      const target = await targetOf(config, t);
      const providerId = await o.providerId(t.companyId);
      const coin = slip44Of(t.assetId);
      if ("none" in target || !providerId || coin === null) return { kind: "not_taken", reason: "provider_d cannot address this transfer", vaspNotFound: "none" in target };
      const { cp, url } = target;
      const requestId = randomUUID();
      const callback = callbackUrl(config, t.environment, providerId, "resolution", callbackToken(o.tokenKey, "resolution", t.companyId, t.id));
      const body = writeInquiry({ asset: { slip0044: coin }, amount: t.amount, callback, IVMS101: inquiryIvms(config, cp, t, target.travelAddress ? null : t.beneficiaryAddress) });
      const fetch = ctx.fetch as unknown as ExchangeFetch;
      let apiVersion = TRP_API_VERSION;
      let r = await trpCall(fetch, config, { method: "POST", url, body, requestId, apiVersion });
      if (!r.ok && r.failure === "http" && r.status === 400) {
        // The peer refused our version: the same inquiry (same request-identifier) in the best 3.x one it supports.
        const other = versionsNamed(r.body).find((v) => v !== apiVersion);
        if (other) {
          apiVersion = other;
          r = await trpCall(fetch, config, { method: "POST", url, body, requestId, apiVersion });
        }
      }
      const vaspId = vaspIdOf(cp);
      if (!r.ok) {
        if (r.failure === "http" && r.status! >= 400 && r.status! < 500) return { kind: "not_taken", reason: `provider_d request failed (${mapped(r)})` };
        return { kind: "unknown", externalId: requestId, error: `provider_d request failed (${mapped(r)})` };
      }
      const res = readResolution(r.body);
      if (!res.ok) return { kind: "unknown", externalId: requestId, error: "provider_d request failed (INVALID_RESPONSE)" };
      const flowState = { requestId, apiVersion, counterparty: cp.fingerprint, travelAddressUrl: url };
      switch (res.value.kind) {
        case "acknowledged":
          return { kind: "taken", externalId: requestId, vaspId, vaspName: cp.name, flowState };
        case "rejected":
          return { kind: "answered", externalId: requestId, theirs: "rejected", reasonType: "COUNTERPARTY_REJECTED", vaspId, vaspName: cp.name, flowState };
        case "approved": {
          const addr = canonicalAddress(t.network as Network, res.value.address);
          if (!addr.ok) return { kind: "unknown", externalId: requestId, error: "provider_d request failed (INVALID_ADDRESS)" };
          // Without a Travel Address the customer named the chain address: an approval of another one is not understood.
          if (!target.travelAddress && addr.address !== t.beneficiaryAddress) return { kind: "unknown", externalId: requestId, error: "provider_d request failed (ADDRESS_MISMATCH)" };
          return { kind: "answered", externalId: requestId, theirs: "accepted", beneficiaryPersons: [], vaspId, vaspName: cp.name, ...(target.travelAddress ? { beneficiaryAddress: addr.address } : {}), flowState: { ...flowState, confirmCallback: res.value.callback } };
        }
      }
    },
  };
}
