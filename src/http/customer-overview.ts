// GET /api/v2/customers/:id/overview (Caravan's operator route, for the console's customer view): identity status,
// wallets, latest transfers and their cases in one read. Each part needs its own scope; the name is masked without pii:view.
import { apiError } from "../domain/errors.ts";
import { maskName } from "../domain/masking.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Repositories } from "../adapters/storage/repositories.ts";
import { ok, type ApiKit } from "./kit.ts";

const ID = /^cus_[0-9a-z]{26}$/;

export function customerOverviewRoutes(kit: ApiKit, deps: { repositories: Pick<Repositories, "customerOverview">; pii: Sealer }) {
  const repo = deps.repositories.customerOverview;
  return kit.group("/api/v2/customers", (r) =>
    r.get(
      "/:id/overview",
      { summary: "Operator: a customer with identity status, wallets, latest transfers and their cases (parts the key may read)", access: { scope: "customers:read", permission: "customers:view" }, pii: true, tags: ["customers", "operator"], readOnly: true },
      (c) => {
        const { company, environment, key } = c.auth;
        const id = c.params.id;
        const row = ID.test(id) ? repo.customer(company.id, environment, id) : undefined;
        if (!row) throw apiError("CUSTOMER_NOT_FOUND", { details: { resource: "Customer", id } });
        const name = row.name_sealed === null ? null : deps.pii.open(row.name_sealed, `customer:${row.id}:name`);
        const may = (scope: string, permission: "wallets:view" | "transfers:view" | "cases:view") => key.scopes.has(scope) && c.auth.can(permission);
        const transfers = may("transfers:read", "transfers:view") ? repo.transfers(company.id, environment, id, 50) : null;
        return ok({
          customer: {
            id: row.id,
            externalId: row.external_id,
            name: c.pii(name, maskName),
            identityStatus: row.identity_status,
            identityCountry: row.identity_country,
            deactivatedAt: row.deactivated_at,
            erasedAt: row.erased_at,
            createdAt: row.created_at,
          },
          wallets: may("wallets:read", "wallets:view")
            ? repo.wallets(company.id, environment, id).map((w) => ({ id: w.id, network: w.network, address: w.address, label: w.label, verified: w.verified === 1, verifiedAt: w.verified_at, createdAt: w.created_at }))
            : null,
          transfers: transfers?.map((t) => ({ id: t.id, direction: t.direction, state: t.state, amount: t.amount, asset: t.asset, network: t.network, protocol: t.protocol, createdAt: t.created_at })) ?? null,
          cases:
            transfers && may("cases:read", "cases:view")
              ? repo.cases(company.id, environment, transfers.map((t) => t.id)).map((x) => ({ id: x.id, caseNumber: x.case_number, type: x.type, status: x.status, resolution: x.resolution, priority: x.priority, transferIds: JSON.parse(x.transfer_ids) as string[], createdAt: x.created_at }))
              : null,
        });
      },
    ),
  );
}
