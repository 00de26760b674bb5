// One customer at a glance for officers, on PostgreSQL: the twin of ../../repos/customer-overview.ts (same port, same
// answers, that file's row mappers). Reads only; the cases' linked transfers are looked into as jsonb.
import type { Environment } from "../../../../domain/types.ts";
import type { CustomerOverviewRepository, OverviewCase, OverviewCustomer, OverviewTransfer, OverviewWallet } from "../../../../ports/customer-overview.ts";
import {
  OVERVIEW_COLUMNS,
  toOverviewCase,
  toOverviewCustomer,
  toOverviewTransfer,
  toOverviewWallet,
  type OverviewCaseRow,
  type OverviewCustomerRow,
  type OverviewTransferRow,
  type OverviewWalletRow,
} from "../../repos/customer-overview.ts";
import type { PgSession } from "../session.ts";

export class PgCustomerOverview implements CustomerOverviewRepository {
  constructor(private readonly db: PgSession) {}

  async customer(companyId: string, env: Environment, id: string): Promise<OverviewCustomer | undefined> {
    const [r] = await this.db.read<OverviewCustomerRow>(`SELECT ${OVERVIEW_COLUMNS.customer} FROM customers WHERE id = $1 AND company_id = $2 AND environment = $3`, [id, companyId, env]);
    return r ? toOverviewCustomer(r) : undefined;
  }

  async wallets(companyId: string, env: Environment, customerId: string): Promise<OverviewWallet[]> {
    const rows = await this.db.read<OverviewWalletRow>(
      `SELECT ${OVERVIEW_COLUMNS.wallet} FROM wallets WHERE company_id = $1 AND environment = $2 AND customer_id = $3 ORDER BY created_at DESC LIMIT 200`,
      [companyId, env, customerId],
    );
    return rows.map(toOverviewWallet);
  }

  /** The customer's latest transfers, originator or beneficiary side, newest first. */
  async transfers(companyId: string, env: Environment, customerId: string, limit: number): Promise<OverviewTransfer[]> {
    const rows = await this.db.read<OverviewTransferRow>(
      `SELECT ${OVERVIEW_COLUMNS.transfer} FROM transfers
        WHERE company_id = $1 AND environment = $2 AND (originator_customer_id = $3 OR beneficiary_customer_id = $3) ORDER BY created_at DESC, id DESC LIMIT $4`,
      [companyId, env, customerId, limit],
    );
    return rows.map(toOverviewTransfer);
  }

  /** Cases whose linked transfers include one of `transferIds`, each once, newest first. */
  async cases(companyId: string, env: Environment, transferIds: string[]): Promise<OverviewCase[]> {
    if (transferIds.length === 0) return [];
    const rows = await this.db.read<OverviewCaseRow>(
      `SELECT c.id, c.case_number, c.type, c.status, c.resolution, c.priority, c.transfer_ids, c.created_at FROM cases c
        WHERE c.company_id = $1 AND c.environment = $2
          AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.transfer_ids::jsonb) AS t(value) WHERE t.value = ANY($3::text[]))
        ORDER BY c.created_at DESC LIMIT 200`,
      [companyId, env, transferIds],
    );
    return rows.map(toOverviewCase);
  }
}
