// provider_b callback requests recorded for idempotency, on PostgreSQL: the twin of ../../repos/provider-b-requests.ts
// (same port, same decisions: `decideClaim`). A claim is one transaction on the writer (so claims of this process are
// serialized as SQLite's IMMEDIATE transactions are); against another process, the unique key decides: the INSERT
// that loses (ON CONFLICT DO NOTHING, after the winner committed) reads the winner's row and decides again.
import { iso } from "../../../../domain/ids.ts";
import type { Claim, ProviderBRequest, ProviderBRequestKind, ProviderBRequestRepository, RequestKey } from "../../../../ports/provider-stores.ts";
import { RELEASED, decideClaim, freshRequestRow, toRequest, type ProviderBRequestRow } from "../../repos/provider-b-requests.ts";
import type { PgSession } from "../session.ts";

const KEY = "company_id = $1 AND environment = $2 AND sender = $3 AND transfer_id = $4";

export class PgProviderBRequests implements ProviderBRequestRepository {
  constructor(private readonly db: PgSession) {}

  private async row(k: RequestKey, lock = false): Promise<ProviderBRequestRow | undefined> {
    const args = [k.companyId, k.environment, k.sender, k.transferId];
    const sql = `SELECT * FROM provider_b_requests WHERE ${KEY}`;
    return lock ? this.db.one<ProviderBRequestRow>(`${sql} FOR UPDATE`, args) : (await this.db.read<ProviderBRequestRow>(sql, args))[0];
  }

  async get(k: RequestKey): Promise<ProviderBRequest | undefined> {
    const r = await this.row(k);
    return r ? toRequest(r) : undefined;
  }

  /**
   * Records the request as in progress unless it is known: of concurrent duplicates exactly one gets `new` (or
   * `reclaim`) and the others `in_progress`.
   */
  claim(k: RequestKey, kind: ProviderBRequestKind, contentHash: string, now: number): Promise<Claim> {
    return this.db.transaction(async (): Promise<Claim> => {
      let row = await this.row(k, true);
      let decision = decideClaim(row, contentHash, now);
      if (decision === "new") {
        const fresh = freshRequestRow(k, kind, contentHash, now);
        const cols = Object.keys(fresh);
        const inserted = await this.db.run(
          `INSERT INTO provider_b_requests (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT DO NOTHING`,
          Object.values(fresh) as (string | null)[],
        );
        if (inserted === 1) return { decision, request: toRequest(fresh) };
        // Another process recorded it since the read: its row decides.
        row = (await this.row(k, true))!;
        decision = decideClaim(row, contentHash, now);
      }
      if (decision === "reclaim") {
        const at = iso(now);
        await this.db.q("UPDATE provider_b_requests SET started_at = $1, updated_at = $1 WHERE id = $2", [at, row!.id]);
        return { decision, request: toRequest({ ...row!, started_at: at, updated_at: at }) };
      }
      return { decision, request: toRequest(row!) };
    });
  }

  /** The answer is recorded; later identical requests get it again. */
  async finish(id: string, answerSealed: string, transferRef: string | null, now: number): Promise<void> {
    const at = iso(now);
    await this.db.q("UPDATE provider_b_requests SET state = 'done', completed_at = $1, answer_sealed = $2, transfer_ref = coalesce($3, transfer_ref), updated_at = $1 WHERE id = $4", [
      at,
      answerSealed,
      transferRef,
      id,
    ]);
  }

  /** Processing failed without an answer: the next identical request may process it again at once. */
  async release(id: string, now: number): Promise<void> {
    await this.db.q("UPDATE provider_b_requests SET started_at = $1, updated_at = $2 WHERE id = $3 AND state = 'in_progress'", [RELEASED, iso(now), id]);
  }
}
