// How a stored transfer is shown: the list item and the detail of Part 1 "Transfers" (masked without pii:view).
import { maskText } from "../../domain/masking.ts";
import type { Protocol } from "../../domain/transfers.ts";
import type { Transfer } from "../../ports/transfers.ts";
import { presentCheck, presentListCheck } from "../../actors/checkpoint.ts";
import type { RouteContext } from "../kit.ts";
import type { TransferRouteDeps } from "./deps.ts";

const party = (vaspId: string | null, vaspName: string | null, address: string | null) => ({ name: vaspName ?? vaspId, vaspId, vaspName, address });

export function transferViews(deps: Pick<TransferRouteDeps, "pii" | "providers" | "providerSettings">) {
  const open = (sealed: string, aad: string) => deps.pii.open(sealed, aad);
  /** A provider's ID never changes once created (first save): kept here once known, not read again per list item. */
  const providerIds = new Map<string, string>();

  /**
   * Reads the IDs of the providers the transfers name that are not known yet (before presenting them). Nothing to
   * wait for (undefined) when every one is known already: a read route then answers in the same turn.
   */
  function knowProviders(companyId: string, protocols: readonly (string | null)[]): Promise<void> | undefined {
    let unknown: string[] | undefined;
    for (const p of protocols) if (p !== null && !providerIds.has(`${companyId}:${p}`) && !unknown?.includes(p)) (unknown ??= []).push(p);
    if (unknown === undefined) return undefined;
    const ask = unknown;
    return (async () => {
      for (const p of ask) {
        const id = (await deps.providerSettings?.id(companyId, p as Protocol)) ?? null;
        if (id !== null) providerIds.set(`${companyId}:${p}`, id);
      }
    })();
  }

  /** Part 1 list item `provider`: the provider's ID (`prv_…`, the same in both environments; read by `knowProviders`), name, display name, protocol. */
  function providerOf(companyId: string, p: Protocol) {
    const id = providerIds.get(`${companyId}:${p}`) ?? null;
    return { id, name: p, displayName: deps.providers.displayName(p), protocol: p };
  }

  function listItem(c: RouteContext, t: Transfer) {
    const checks = t.checks;
    return {
      id: t.id,
      direction: t.direction,
      state: t.state,
      status: t.status,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      blockchainType: t.blockchainType,
      originator: party(t.originatorVaspId, t.originatorVaspName, t.originatorAddress),
      beneficiary: party(t.beneficiaryVaspId, t.beneficiaryVaspName, t.beneficiaryAddress),
      // The originator side's status: ours on an outgoing transfer, the counterparty's on an incoming one (Part 1).
      travelRule: { protocol: t.protocol ?? "pending", matchedAt: t.matchedAt, status: t.direction === "outgoing" ? t.oursStatus : t.theirsStatus },
      screening: { sanctions: { status: t.sanctionsStatus, provider: t.sanctionsProvider } },
      compliance: { checks: checks.map((k) => presentListCheck(k, c.auth.piiView, open, t.id)) },
      provider: t.protocol ? providerOf(c.auth.company.id, t.protocol as Protocol) : null,
      externalId: t.externalId,
      createdAt: t.createdAt,
    };
  }

  function detail(c: RouteContext, t: Transfer, checksLimit: number, checksOffset: number) {
    const checks = t.checks;
    const attempts = t.attempts;
    // Decrypted only for a role that may see it: the mask of any text is "***", so nothing needs opening for the others.
    const details = t.rejectionDetailsSealed ? (c.auth.piiView ? deps.pii.open(t.rejectionDetailsSealed, `transfer:${t.id}:rejection`) : "") : null;
    const out: Record<string, unknown> = {
      id: t.id,
      direction: t.direction,
      state: t.state,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      originator: { address: t.originatorAddress, vaspId: t.originatorVaspId, vaspName: t.originatorVaspName },
      beneficiary: { address: t.beneficiaryAddress, vaspId: t.beneficiaryVaspId, vaspName: t.beneficiaryVaspName },
      status: { ours: t.oursStatus, theirs: t.theirsStatus },
      rejection: t.rejectionReason ? { reason: t.rejectionReason, details: c.pii(details, maskText) } : null,
      compliance: {
        // The verdict, the same value the list shows as `status`: a transfer has one from its creation (pending until
        // decided), whether rules with integration checks or field rules alone decided it.
        status: t.status,
        total: checks.length,
        checks: checks.slice(checksOffset, checksOffset + checksLimit).map((k) => presentCheck(k, c.auth.piiView, open, t.id)),
      },
      cascade: { provider: t.protocol, externalId: t.providerExternalId, attempts },
      txHash: t.txHash,
      messages: t.messages,
    };
    if (t.expiresAt) out.expiresAt = t.expiresAt;
    if (t.acceptedAt) out.acceptedAt = t.acceptedAt;
    if (t.completedAt) out.completedAt = t.completedAt;
    out.createdAt = t.createdAt;
    return out;
  }

  return { listItem, detail, knowProviders };
}
