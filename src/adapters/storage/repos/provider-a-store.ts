// provider_a storage: processed webhook messages (Part 3 "provider_a callback": recorded only after success), the
// transfers its sweeps visit (polling, exchange stall) and the verified identity its flows send.
import type { Environment } from "../../../domain/types.ts";
import type { Person } from "../../../domain/ivms101/index.ts";
import { iso } from "../../../domain/ids.ts";
import type { Storage } from "../types.ts";
import type { TransferRow } from "./transfers.ts";

export interface MessageKey {
  companyId: string;
  environment: Environment;
  entity: string;
  messageId: string;
  bodySha256: string;
}

export interface DueTransfer {
  id: string;
  company_id: string;
  environment: Environment;
}

export class ProviderAStore {
  constructor(private readonly s: Storage) {}

  processed(k: MessageKey): boolean {
    return (
      this.s
        .stmt("SELECT 1 AS x FROM provider_a_messages WHERE company_id = ? AND environment = ? AND entity = ? AND message_id = ? AND body_sha256 = ?")
        .get(k.companyId, k.environment, k.entity, k.messageId, k.bodySha256) != null
    );
  }

  /** Recorded after the event was applied (a failure leaves it unrecorded: its redelivery is processed again). */
  record(k: MessageKey, providerTransferId: string, transferId: string | null, now: number): void {
    this.s
      .stmt(
        `INSERT INTO provider_a_messages (company_id, environment, entity, message_id, body_sha256, provider_transfer_id, transfer_id, processed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(k.companyId, k.environment, k.entity, k.messageId, k.bodySha256, providerTransferId, transferId, iso(now));
  }

  /** The transfer this environment holds for a provider transfer ID (outgoing or incoming). */
  byProviderTransferId(companyId: string, env: Environment, providerTransferId: string): TransferRow | undefined {
    return (this.s
      .stmt("SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND protocol = 'provider_a'")
      .get(companyId, env, providerTransferId) ?? undefined) as TransferRow | undefined;
  }

  /** An outgoing transfer by our ID whose provider_a creation started (a lost answer: bound by a later event). */
  outgoingByRef(companyId: string, env: Environment, id: string): TransferRow | undefined {
    return (this.s
      .stmt("SELECT * FROM transfers WHERE id = ? AND company_id = ? AND environment = ? AND direction = 'outgoing' AND protocol = 'provider_a'")
      .get(id, companyId, env) ?? undefined) as TransferRow | undefined;
  }

  /** `exchanging` or `awaiting_counterparty` and unchanged since `before` (polling: five minutes). */
  dueForPoll(before: number, limit = 500): DueTransfer[] {
    return this.s
      .stmt(
        `SELECT id, company_id, environment FROM transfers WHERE protocol = 'provider_a' AND state IN ('exchanging', 'awaiting_counterparty')
           AND updated_at <= ? ORDER BY updated_at LIMIT ?`,
      )
      .all(iso(before), limit) as unknown as DueTransfer[];
  }

  /** `exchanging` unchanged since `before` (the stall: fifteen minutes). */
  dueForStall(before: number, limit = 500): DueTransfer[] {
    return this.s
      .stmt("SELECT id, company_id, environment FROM transfers WHERE protocol = 'provider_a' AND state = 'exchanging' AND updated_at <= ? ORDER BY updated_at LIMIT ?")
      .all(iso(before), limit) as unknown as DueTransfer[];
  }

  /** A customer's verified identity (sealed persons opened), or null when not verified, blocked, inactive or gone. */
  verifiedIdentity(open: (sealed: string, aad: string) => string, companyId: string, env: Environment, customerId: string): Person[] | null {
    const c = this.s
      .stmt("SELECT id, status, identity_status, identity_sealed FROM customers WHERE id = ? AND company_id = ? AND environment = ?")
      .get(customerId, companyId, env) as { id: string; status: string; identity_status: string | null; identity_sealed: string | null } | null;
    if (!c || c.status !== "active" || c.identity_status !== "verified" || !c.identity_sealed) return null;
    return JSON.parse(open(c.identity_sealed, `customer:${c.id}:identity`)) as Person[];
  }

  originatorCustomerOf(companyId: string, env: Environment, transferId: string): string | null {
    const r = this.s.stmt("SELECT originator_customer_id FROM transfers WHERE id = ? AND company_id = ? AND environment = ?").get(transferId, companyId, env) as { originator_customer_id: string | null } | null;
    return r?.originator_customer_id ?? null;
  }
}
