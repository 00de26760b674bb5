// provider_b callback requests recorded for idempotency (Part 3 "provider_b callbacks"): claim, finish, release, answers sealed.
import { iso, newId } from "../../../domain/ids.ts";
import { claimDecision } from "../../../domain/provider_b/decisions.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { providerBRequests as providerBRequestsTable } from "../../../../db/schema/provider_b.ts";
import type { Claim, ProviderBRequest, ProviderBRequestKind, ProviderBRequestRepository, RequestKey } from "../../../ports/provider-stores.ts";

export type { Claim, ProviderBRequest, ProviderBRequestRepository, RequestKey } from "../../../ports/provider-stores.ts";
export { answerAad } from "../../../ports/provider-stores.ts";

export type ProviderBRequestRow = RowOf<typeof providerBRequestsTable>;

/** What a released claim's `started_at` is set to: long enough ago that the next identical request reclaims it at once. */
export const RELEASED = iso(0);

export const toRequest = (r: ProviderBRequestRow): ProviderBRequest => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment,
  sender: r.sender,
  transferId: r.transfer_id,
  kind: r.kind,
  contentHash: r.content_hash,
  state: r.state,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  answerSealed: r.answer_sealed,
  transferRef: r.transfer_ref,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The claim decision over the recorded row, if any (both engines). */
export function decideClaim(row: ProviderBRequestRow | undefined, contentHash: string, now: number): Claim["decision"] {
  // A record of the other kind under the same transferId is other content (its hash covers the kind).
  return claimDecision(row ? { contentHash: row.content_hash, state: row.state, startedAt: Date.parse(row.started_at) } : null, contentHash, now);
}

/** A new claim's row: in progress since `now`, no answer yet. */
export function freshRequestRow(k: RequestKey, kind: ProviderBRequestKind, contentHash: string, now: number): ProviderBRequestRow {
  const at = iso(now);
  return {
    id: newId("pbr", now),
    company_id: k.companyId,
    environment: k.environment,
    sender: k.sender,
    transfer_id: k.transferId,
    kind,
    content_hash: contentHash,
    state: "in_progress",
    started_at: at,
    completed_at: null,
    answer_sealed: null,
    transfer_ref: null,
    created_at: at,
    updated_at: at,
  };
}

export class ProviderBRequests implements ProviderBRequestRepository {
  constructor(private readonly s: Storage) {}

  private row(k: RequestKey): ProviderBRequestRow | undefined {
    return (this.s
      .stmt("SELECT * FROM provider_b_requests WHERE company_id = ? AND environment = ? AND sender = ? AND transfer_id = ?")
      .get(k.companyId, k.environment, k.sender, k.transferId) ?? undefined) as ProviderBRequestRow | undefined;
  }

  get(k: RequestKey): Promise<ProviderBRequest | undefined> {
    return this.s.run(() => {
      const r = this.row(k);
      return r ? toRequest(r) : undefined;
    });
  }

  /**
   * Records the request as in progress unless it is known: one IMMEDIATE transaction over a unique index, so of
   * concurrent duplicates exactly one gets `new` (or `reclaim`) and the others `in_progress`.
   */
  claim(k: RequestKey, kind: ProviderBRequestKind, contentHash: string, now: number): Promise<Claim> {
    return this.s.transaction(async (): Promise<Claim> => {
      const row = this.row(k);
      const at = iso(now);
      const decision = decideClaim(row, contentHash, now);
      if (decision === "new") {
        const fresh = freshRequestRow(k, kind, contentHash, now);
        const cols = Object.keys(fresh);
        this.s.stmt(`INSERT INTO provider_b_requests (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(fresh) as string[]));
        return { decision, request: toRequest(fresh) };
      }
      if (decision === "reclaim") {
        this.s.stmt("UPDATE provider_b_requests SET started_at = ?, updated_at = ? WHERE id = ?").run(at, at, row!.id);
        return { decision, request: toRequest({ ...row!, started_at: at, updated_at: at }) };
      }
      return { decision, request: toRequest(row!) };
    });
  }

  /** The answer is recorded; later identical requests get it again. */
  finish(id: string, answerSealed: string, transferRef: string | null, now: number): Promise<void> {
    const at = iso(now);
    return this.s.run(() => {
      this.s
        .stmt("UPDATE provider_b_requests SET state = 'done', completed_at = ?, answer_sealed = ?, transfer_ref = coalesce(?, transfer_ref), updated_at = ? WHERE id = ?")
        .run(at, answerSealed, transferRef, at, id);
    });
  }

  /** Processing failed without an answer: the next identical request may process it again at once. */
  release(id: string, now: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE provider_b_requests SET started_at = ?, updated_at = ? WHERE id = ? AND state = 'in_progress'").run(RELEASED, iso(now), id);
    });
  }
}
