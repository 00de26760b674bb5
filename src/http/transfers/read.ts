// How a stored transfer is shown: the list item and the detail of Part 1 "Transfers" (masked without pii:view).
import { maskText } from "../../domain/masking.ts";
import type { Protocol } from "../../domain/transfers.ts";
import type { TransferRow } from "../../adapters/storage/repos/transfers.ts";
import { presentCheck, presentListCheck, type StoredCheck } from "../../actors/checkpoint.ts";
import type { RouteContext } from "../kit.ts";
import type { TransferRouteDeps } from "./deps.ts";

const party = (vaspId: string | null, vaspName: string | null, address: string | null) => ({ name: vaspName ?? vaspId, vaspId, vaspName, address });

export function transferViews(deps: Pick<TransferRouteDeps, "pii" | "providers" | "providerSettings">) {
  const open = (sealed: string, aad: string) => deps.pii.open(sealed, aad);
  /** A provider's ID never changes once created (first save): kept here once known, not read again per list item. */
  const providerIds = new Map<string, string>();

  /** Reads the IDs of the providers the transfers name that are not known yet (before presenting them). */
  async function knowProviders(companyId: string, protocols: readonly (string | null)[]): Promise<void> {
    for (const p of new Set(protocols)) {
      const key = `${companyId}:${p}`;
      if (p === null || providerIds.has(key)) continue;
      const id = (await deps.providerSettings?.id(companyId, p as Protocol)) ?? null;
      if (id !== null) providerIds.set(key, id);
    }
  }

  /** Part 1 list item `provider`: the provider's ID (`prv_…`, the same in both environments; read by `knowProviders`), name, display name, protocol. */
  function providerOf(companyId: string, p: Protocol) {
    const id = providerIds.get(`${companyId}:${p}`) ?? null;
    return { id, name: p, displayName: deps.providers.displayName(p), protocol: p };
  }

  function listItem(c: RouteContext, t: TransferRow) {
    const checks = JSON.parse(t.checks) as StoredCheck[];
    return {
      id: t.id,
      direction: t.direction,
      state: t.state,
      status: t.status,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      blockchainType: t.blockchain_type,
      originator: party(t.originator_vasp_id, t.originator_vasp_name, t.originator_address),
      beneficiary: party(t.beneficiary_vasp_id, t.beneficiary_vasp_name, t.beneficiary_address),
      // The originator side's status: ours on an outgoing transfer, the counterparty's on an incoming one (Part 1).
      travelRule: { protocol: t.protocol ?? "pending", matchedAt: t.matched_at, status: t.direction === "outgoing" ? t.ours_status : t.theirs_status },
      screening: { sanctions: { status: t.sanctions_status, provider: t.sanctions_provider } },
      compliance: { checks: checks.map((k) => presentListCheck(k, c.auth.piiView, open, t.id)) },
      provider: t.protocol ? providerOf(c.auth.company.id, t.protocol as Protocol) : null,
      externalId: t.external_id,
      createdAt: t.created_at,
    };
  }

  function detail(c: RouteContext, t: TransferRow, checksLimit: number, checksOffset: number) {
    const checks = JSON.parse(t.checks) as StoredCheck[];
    const attempts = JSON.parse(t.attempts) as Record<string, unknown>[];
    // Decrypted only for a role that may see it: the mask of any text is "***", so nothing needs opening for the others.
    const details = t.rejection_details_sealed ? (c.auth.piiView ? deps.pii.open(t.rejection_details_sealed, `transfer:${t.id}:rejection`) : "") : null;
    const out: Record<string, unknown> = {
      id: t.id,
      direction: t.direction,
      state: t.state,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      originator: { address: t.originator_address, vaspId: t.originator_vasp_id, vaspName: t.originator_vasp_name },
      beneficiary: { address: t.beneficiary_address, vaspId: t.beneficiary_vasp_id, vaspName: t.beneficiary_vasp_name },
      status: { ours: t.ours_status, theirs: t.theirs_status },
      rejection: t.rejection_reason ? { reason: t.rejection_reason, details: c.pii(details, maskText) } : null,
      compliance: {
        // The verdict, the same value the list shows as `status`: a transfer has one from its creation (pending until
        // decided), whether rules with integration checks or field rules alone decided it.
        status: t.status,
        total: checks.length,
        checks: checks.slice(checksOffset, checksOffset + checksLimit).map((k) => presentCheck(k, c.auth.piiView, open, t.id)),
      },
      cascade: { provider: t.protocol, externalId: t.provider_external_id, attempts },
      txHash: t.tx_hash,
      messages: JSON.parse(t.messages),
    };
    if (t.expires_at) out.expiresAt = t.expires_at;
    if (t.accepted_at) out.acceptedAt = t.accepted_at;
    if (t.completed_at) out.completedAt = t.completed_at;
    out.createdAt = t.created_at;
    return out;
  }

  return { listItem, detail, knowProviders };
}
