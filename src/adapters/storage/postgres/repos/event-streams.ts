// The open live event streams of every node on one PostgreSQL database (src/ports/event-streams.ts): a row of
// event_streams per stream (migration 0015), tied to the node that holds its connection by node ID and incarnation.
// A row counts while that node's membership row (cluster_nodes) is the same incarnation's and current at the opener's
// clock: the next open of the company deletes the rows of a node that left, died (its heartbeat lapsed) or was
// replaced by a restart under the same ID, so a dead node's streams stop counting when its membership lapses. A node
// whose membership lapsed is not ready, and its fan-out ends its streams itself. Opens of one company take a
// transaction-scoped advisory lock of that company first, so two nodes' opens are counted one after the other and
// never both take the last place.
import type { OpenStreamSlot, StreamCapReached, StreamCaps, StreamRegistry } from "../../../../ports/event-streams.ts";
import type { PgSession } from "../session.ts";

/** The advisory lock class of the stream opens ("STRM"), with the company's hashtext as the second key. */
export const STREAMS_LOCK = 0x5354524d;

export class PgStreamRegistry implements StreamRegistry {
  constructor(
    private readonly db: PgSession,
    /** The node this process is (its ID and this start's incarnation, as registered in cluster_nodes). */
    private readonly node: { readonly nodeId: string; readonly incarnation: string },
  ) {}

  open(slot: OpenStreamSlot, caps: StreamCaps, now: number): Promise<StreamCapReached | null> {
    return this.db.transaction(async () => {
      await this.db.q("SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))", [STREAMS_LOCK, slot.companyId]);
      await this.db.q(
        `DELETE FROM event_streams s WHERE s.company_id = $1
           AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = s.node_id AND n.incarnation = s.incarnation AND n.expires_at > $2)`,
        [slot.companyId, now],
      );
      const [held] = await this.db.q<{ key: number; environment: number; company: number }>(
        `SELECT count(*) FILTER (WHERE key_id = $2)::int AS key, count(*) FILTER (WHERE environment = $3)::int AS environment, count(*)::int AS company
         FROM event_streams WHERE company_id = $1`,
        [slot.companyId, slot.keyId, slot.environment],
      );
      // In the order the fan-out checks them on one node: the key's, the environment's, the company's.
      if (held!.key >= caps.perKey) return { cap: "key", held: held!.key, max: caps.perKey };
      if (held!.environment >= caps.perEnvironment) return { cap: "environment", held: held!.environment, max: caps.perEnvironment };
      if (held!.company >= caps.perCompany) return { cap: "company", held: held!.company, max: caps.perCompany };
      await this.db.q(
        "INSERT INTO event_streams (id, node_id, incarnation, key_id, company_id, environment, opened_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [slot.id, this.node.nodeId, this.node.incarnation, slot.keyId, slot.companyId, slot.environment, now],
      );
      return null;
    });
  }

  async close(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.q("DELETE FROM event_streams WHERE id = ANY($1::text[])", [[...ids]]);
  }
}
