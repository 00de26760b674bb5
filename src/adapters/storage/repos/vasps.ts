// Counterparty VASPs an environment has seen: written by transfers (both sides) and wallet discovery, read by VASP search.
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { VaspRepository, VaspResult } from "../../../ports/vasps.ts";

export type { VaspRepository, VaspResult } from "../../../ports/vasps.ts";

export class VaspDirectory implements VaspRepository {
  constructor(private readonly s: Storage) {}

  /** Records that `vaspId` was seen under `name` (its ID when no name is known) via `source`, at `at` (ISO). */
  record(companyId: string, env: Environment, vaspId: string, name: string | null, source: string, at: string): Promise<void> {
    return this.s.run(() => {
    this.s
      .stmt(
        `INSERT INTO vasp_names (company_id, environment, vasp_id, name, source, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, environment, vasp_id, name) DO UPDATE SET
           last_seen_at = max(last_seen_at, excluded.last_seen_at),
           source = CASE WHEN vasp_names.source = 'transfer_history' THEN vasp_names.source ELSE excluded.source END`,
      )
      .run(companyId, env, vaspId, name && name.trim() ? name.trim() : vaspId, source, at);
    });
  }

  /**
   * VASPs whose ID or any past name contains `needle` (lower-cased), each once under its latest name (its ID
   * only when no name was ever seen),
   * sorted by name then ID, after the keyset position.
   */
  search(companyId: string, env: Environment, needle: string, after: [string, string] | null, limit: number): Promise<VaspResult[]> {
    return this.s.run(() => this.s
      .stmt(
        `WITH matched AS (
           SELECT DISTINCT vasp_id FROM vasp_names
            WHERE company_id = ?1 AND environment = ?2 AND (instr(lower(vasp_id), ?3) > 0 OR instr(lower(name), ?3) > 0)
         ), summary AS (
           SELECT m.vasp_id AS id,
                  (SELECT n.name FROM vasp_names n WHERE n.company_id = ?1 AND n.environment = ?2 AND n.vasp_id = m.vasp_id
                    ORDER BY n.name = n.vasp_id, n.last_seen_at DESC, n.name LIMIT 1) AS name,
                  CASE WHEN EXISTS (SELECT 1 FROM vasp_names n WHERE n.company_id = ?1 AND n.environment = ?2 AND n.vasp_id = m.vasp_id AND n.source = 'transfer_history')
                       THEN 'transfer_history'
                       ELSE (SELECT n.source FROM vasp_names n WHERE n.company_id = ?1 AND n.environment = ?2 AND n.vasp_id = m.vasp_id
                              ORDER BY n.last_seen_at DESC LIMIT 1) END AS source
             FROM matched m
         )
         SELECT id, name, source FROM summary
          WHERE ?4 IS NULL OR lower(name) > ?4 OR (lower(name) = ?4 AND id > ?5)
          ORDER BY lower(name), id LIMIT ?6`,
      )
      .all(companyId, env, needle, after ? after[0] : null, after ? after[1] : null, limit)
      .map((r) => ({ id: r.id as string, name: r.name as string, source: r.source as string })));
  }
}
