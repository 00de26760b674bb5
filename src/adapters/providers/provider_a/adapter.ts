// provider_a outgoing (Part 3 "provider_a transfers → Outgoing", beneficiary discovery, connection test): the adapter
// surface the routing cascade calls. What happens after the provider took a transfer is the flow's
// (src/actors/flows/provider_a.ts).
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { checkSettings, type ProviderASettings } from "../../../domain/provider_a/settings.ts";
import { accountOf, assetNetwork, carries } from "../../../domain/provider_a/transfer.ts";
import { splitDestination } from "../../../domain/networks/tags.ts";
import type { AdapterContext, Discovery, OutgoingTransfer, ProviderAdapter, Submission } from "../types.ts";
import type { TransferCandidate } from "../registry.ts";
import { ProviderAClient, type ProviderAFetch } from "./client.ts";
import type { Logger } from "../../log.ts";

export const NAME = "provider_a";
/** Part 3: stored texts name the provider, never the brand ("Notabene request failed (HTTP_401)"). */
export const failed = (code: string) => `${NAME} request failed (${code})`;

export interface ProviderADeps {
  /** The OAuth origin (CARAVAN_PROVIDER_A_AUTH_URL). */
  authUrl: string;
  /** Allowed `apiUrl` origins (CARAVAN_PROVIDER_A_API_ORIGINS). */
  apiOrigins: readonly string[];
  /** The originator customer's verified identity for an outgoing transfer, or null when it is not verified. */
  originatorIdentity(companyId: string, env: Environment, transferId: string): Promise<Person[] | null>;
  /** Where an answer not of the published shape is logged (the call and the field path, never a value). */
  log?: Logger;
}

export type Connected = { ok: true; client: ProviderAClient; settings: ProviderASettings } | { ok: false; problem: string };

export interface ProviderA extends ProviderAdapter {
  /** The client for a context's credentials, or the INVALID_CONFIGURATION problem (formats are checked on use). */
  connect(ctx: Pick<AdapterContext, "credentials" | "fetch" | "now">): Connected;
}

/** No answer, 429 or 5xx: asked again at least 11 s later (Part 3, discovery table). */
const retryable = (code: string) => code === "TRANSPORT_ERROR" || code === "HTTP_429" || /^HTTP_5\d\d$/.test(code);

export function providerA(deps: ProviderADeps): ProviderA {
  const connect = (ctx: Pick<AdapterContext, "credentials" | "fetch" | "now">): Connected => {
    const c = checkSettings(ctx.credentials, deps.apiOrigins);
    if (!c.ok) return { ok: false, problem: `INVALID_CONFIGURATION: ${c.problem}` };
    const now = ctx.now;
    // The context's clock is the handler's; token expiry is measured on the wall clock.
    const unreadable = (call: string, path: string) => deps.log?.("warn", `${NAME} answer not understood`, { call, path });
    return { ok: true, settings: c.settings, client: new ProviderAClient(c.settings, deps.authUrl, ctx.fetch as unknown as ProviderAFetch, () => Math.max(now, Date.now()), unreadable) };
  };

  return {
    name: NAME,
    connect,

    // Part 3 "Sending capability of provider_a": beneficiary persons required; addresses and VASP discovered.
    canCarry(t: TransferCandidate) {
      if (t.beneficiaryPersonCount < 1) return { ok: false, reason: "beneficiary IVMS data is required (at least one person in beneficiary.beneficiaryPersons)" };
      return { ok: true };
    },

    // Part 3: a token, then the entity lookup of vaspDid must return the same entity; the signing secret by format only.
    async testConnection(_env: Environment, ctx: AdapterContext) {
      const c = connect(ctx);
      if (!c.ok) return { success: false, message: `Invalid ${NAME} configuration: ${c.problem.slice("INVALID_CONFIGURATION: ".length)}`, error: "INVALID_CONFIGURATION" };
      const token = await c.client.token(true);
      if (!token.ok) return { success: false, message: failed(token.code), error: failed(token.code) };
      const e = await c.client.lookupEntity(c.settings.vaspDid);
      if (!e.ok) return { success: false, message: failed(e.code), error: failed(e.code) };
      if (e.body.did !== c.settings.vaspDid) return { success: false, message: failed("ENTITY_MISMATCH"), error: failed("ENTITY_MISMATCH") };
      return { success: true, message: `Connected to ${NAME} as ${e.body.name ?? e.body.did}` };
    },

    async discover(t: OutgoingTransfer, ctx: AdapterContext): Promise<Discovery> {
      // Part 3: an asset on a network not sent through this provider: no VASP here, another provider may carry it.
      if (!carries(t.network)) return { kind: "not_found" };
      const c = connect(ctx);
      if (!c.ok) return { kind: "retry", reason: c.problem };
      const dest = splitDestination(t.beneficiaryAddress);
      const asset = assetNetwork(t.asset, t.network);
      const account = accountOf(dest.address, dest.memo);
      const r = await c.client.discover(asset, account);
      if (!r.ok) return retryable(r.code) ? { kind: "retry", reason: failed(r.code) } : { kind: "fatal", reason: failed(r.code) };
      const a = r.body;
      // An answer about another address, memo or asset stops routing; so do UNCONFIRMED, a custodian, our own entity.
      if (a.address !== account || a.asset.toUpperCase() !== asset) return { kind: "fatal", reason: failed("DISCOVERY_MISMATCH") };
      if (a.status === "NOT_FOUND") return { kind: "not_found" };
      if (a.status !== "CONFIRMED") return { kind: "fatal", reason: failed(a.status === "UNCONFIRMED" ? "UNCONFIRMED" : "INVALID_RESPONSE") };
      if (a.custodian) return { kind: "fatal", reason: failed("CUSTODIAN") };
      if (!a.owner) return { kind: "fatal", reason: failed("INVALID_RESPONSE") };
      if (a.owner.did === c.settings.vaspDid) return { kind: "fatal", reason: failed("OWN_ENTITY") };
      return { kind: "found", vaspId: a.owner.did, vaspName: a.owner.name };
    },

    async submit(t: OutgoingTransfer, vasp, ctx: AdapterContext): Promise<Submission> {
      const c = connect(ctx);
      if (!c.ok) return { kind: "not_taken", reason: c.problem };
      // The customer's verified identity is the originator, never the request's originator (Part 3, Outgoing 2).
      const identity = await deps.originatorIdentity(t.companyId, t.environment, t.id);
      if (!identity || identity.length === 0) return { kind: "not_taken", reason: "VERIFIED_ORIGINATOR_REQUIRED" };
      if (t.beneficiaryPersons.length === 0) return { kind: "not_taken", reason: "beneficiary IVMS data is required" };
      const dest = splitDestination(t.beneficiaryAddress);
      const origin = t.originatorAddress ? splitDestination(t.originatorAddress) : null;
      // From here the creation has started: any failure is submission_unknown; no other provider is tried.
      const created = await c.client.createTx({
        ref: t.id,
        assetId: t.assetId,
        amount: t.amount,
        originatorAddress: origin?.address ?? null,
        beneficiaryAddress: dest.address,
        memo: dest.memo,
        beneficiaryVaspDid: vasp.vaspId,
      });
      if (!created.ok) return { kind: "unknown", externalId: null, error: failed(created.code) };
      if (created.body.ref !== t.id) return { kind: "unknown", externalId: null, error: failed("INVALID_RESPONSE") };
      const appended = await c.client.append(created.body, {
        originator: { persons: identity, address: origin?.address ?? null, memo: origin?.memo ?? null },
        beneficiary: { persons: t.beneficiaryPersons, address: dest.address, memo: dest.memo },
      });
      if (!appended.ok) return { kind: "unknown", externalId: created.body.id, error: failed(appended.code) };
      return { kind: "taken", externalId: created.body.id, vaspId: vasp.vaspId, vaspName: vasp.vaspName };
    },
  };
}
