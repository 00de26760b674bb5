// Counterparty VASPs an environment has seen, on PostgreSQL: the twin of ../../repos/vasps.ts (same port, same
// answers; strpos for instr, GREATEST for SQLite's two-argument max).
import type { Environment } from "../../../../domain/types.ts";
import type { VaspRepository, VaspResult } from "../../../../ports/vasps.ts";
import type { PgSession } from "../session.ts";

export class PgVaspDirectory implements VaspRepository {
  constructor(private readonly db: PgSession) {}

  async record(companyId: string, env: Environment, vaspId: string, name: string | null, source: string, at: string): Promise<void> {
    await this.db.q(
      `INSERT INTO vasp_names (company_id, environment, vasp_id, name, source, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (company_id, environment, vasp_id, name) DO UPDATE SET
         last_seen_at = GREATEST(vasp_names.last_seen_at, excluded.last_seen_at),
         source = CASE WHEN vasp_names.source = 'transfer_history' THEN vasp_names.source ELSE excluded.source END`,
      [companyId, env, vaspId, name && name.trim() ? name.trim() : vaspId, source, at],
    );
  }

  async search(companyId: string, env: Environment, needle: string, after: [string, string] | null, limit: number): Promise<VaspResult[]> {
    const rows = await this.db.read<{ id: string; name: string; source: string }>(
      `WITH matched AS (
         SELECT DISTINCT vasp_id FROM vasp_names
          WHERE company_id = $1 AND environment = $2 AND (strpos(lower(vasp_id), $3) > 0 OR strpos(lower(name), $3) > 0)
       ), summary AS (
         SELECT m.vasp_id AS id,
                (SELECT n.name FROM vasp_names n WHERE n.company_id = $1 AND n.environment = $2 AND n.vasp_id = m.vasp_id
                  ORDER BY n.name = n.vasp_id, n.last_seen_at DESC, n.name LIMIT 1) AS name,
                CASE WHEN EXISTS (SELECT 1 FROM vasp_names n WHERE n.company_id = $1 AND n.environment = $2 AND n.vasp_id = m.vasp_id AND n.source = 'transfer_history')
                     THEN 'transfer_history'
                     ELSE (SELECT n.source FROM vasp_names n WHERE n.company_id = $1 AND n.environment = $2 AND n.vasp_id = m.vasp_id
                            ORDER BY n.last_seen_at DESC LIMIT 1) END AS source
           FROM matched m
       )
       SELECT id, name, source FROM summary
        WHERE $4::text IS NULL OR lower(name) > $4 OR (lower(name) = $4 AND id > $5)
        ORDER BY lower(name), id LIMIT $6`,
      [companyId, env, needle, after ? after[0] : null, after ? after[1] : null, limit],
    );
    return rows.map((r) => ({ id: r.id, name: r.name, source: r.source }));
  }
}
