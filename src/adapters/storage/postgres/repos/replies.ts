// The answers to asks that crossed nodes, on PostgreSQL (src/ports/replies.ts; table actor_replies, migration 0013).
// `put` joins the caller's unit of work (the runtime's group commit that acknowledges the message), so the answer
// exists exactly when the acknowledgement does; the row trigger's NOTIFY goes out with that commit.
import type { ReplyRecord, ReplyStore } from "../../../../ports/replies.ts";
import type { PgSession } from "../session.ts";

interface ReplyRow {
  token: string;
  node_id: string;
  body: string;
  is_error: number;
  error_class: string | null;
  error_code: string | null;
  created_at: number;
}

const toReply = (r: ReplyRow): ReplyRecord => ({ token: r.token, node: r.node_id, body: r.body, errorClass: r.is_error ? (r.error_class ?? "Error") : null, errorCode: r.error_code, createdAt: r.created_at });

export class PgReplyStore implements ReplyStore {
  constructor(private readonly db: PgSession) {}

  async put(r: ReplyRecord): Promise<void> {
    await this.db.q(
      `INSERT INTO actor_replies (token, node_id, body, is_error, error_class, error_code, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (token) DO NOTHING`,
      [r.token, r.node, r.body, r.errorClass === null ? 0 : 1, r.errorClass, r.errorCode, r.createdAt],
    );
  }

  async take(node: string, limit: number): Promise<ReplyRecord[]> {
    // One statement: the rows are the asker's alone, and each is answered once (a concurrent take gets the others).
    const rows = await this.db.q<ReplyRow>(
      `DELETE FROM actor_replies WHERE token IN (SELECT token FROM actor_replies WHERE node_id = $1 ORDER BY created_at, token LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING *`,
      [node, limit],
    );
    return rows.map(toReply).sort((a, b) => a.createdAt - b.createdAt || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
  }

  async hintMailbox(sender: string): Promise<void> {
    await this.db.q("SELECT pg_notify('caravan_mailbox', $1)", [sender]);
  }

  async sweep(before: number): Promise<number> {
    return this.db.run("DELETE FROM actor_replies WHERE created_at < $1", [before]);
  }
}
