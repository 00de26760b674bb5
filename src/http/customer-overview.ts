// GET /api/v2/customers/:id/overview (Caravan's operator route, for the console's customer view): identity status,
// wallets, latest transfers and their cases in one read. Each part needs its own scope; the name is masked without pii:view.
import { apiError } from "../domain/errors.ts";
import { maskName } from "../domain/masking.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Repositories } from "../ports/repositories.ts";
import { ok, type ApiKit } from "./kit.ts";

const ID = /^cus_[0-9a-z]{26}$/;

export function customerOverviewRoutes(kit: ApiKit, deps: { repositories: Pick<Repositories, "customerOverview">; pii: Sealer }) {
  const repo = deps.repositories.customerOverview;
  return kit.group("/api/v2/customers", (r) =>
    r.get(
      "/:id/overview",
      { summary: "Operator: a customer with identity status, wallets, latest transfers and their cases (parts the key may read)", access: { scope: "customers:read", permission: "customers:view" }, pii: true, tags: ["customers", "operator"], readOnly: true },
      async (c) => {
        const { company, environment, key } = c.auth;
        const id = c.params.id;
        const found = ID.test(id) ? await repo.customer(company.id, environment, id) : undefined;
        if (!found) throw apiError("CUSTOMER_NOT_FOUND", { details: { resource: "Customer", id } });
        const name = found.nameSealed === null ? null : deps.pii.open(found.nameSealed, `customer:${found.id}:name`);
        const may = (scope: string, permission: "wallets:view" | "transfers:view" | "cases:view") => key.scopes.has(scope) && c.auth.can(permission);
        const transfers = may("transfers:read", "transfers:view") ? await repo.transfers(company.id, environment, id, 50) : null;
        const wallets = may("wallets:read", "wallets:view") ? await repo.wallets(company.id, environment, id) : null;
        const cases = transfers && may("cases:read", "cases:view") ? await repo.cases(company.id, environment, transfers.map((t) => t.id)) : null;
        return ok({
          customer: {
            id: found.id,
            externalId: found.externalId,
            name: c.pii(name, maskName),
            identityStatus: found.identityStatus,
            identityCountry: found.identityCountry,
            deactivatedAt: found.deactivatedAt,
            erasedAt: found.erasedAt,
            createdAt: found.createdAt,
          },
          wallets: wallets?.map((w) => ({ id: w.id, network: w.network, address: w.address, label: w.label, verified: w.verified, verifiedAt: w.verifiedAt, createdAt: w.createdAt })) ?? null,
          transfers: transfers?.map((t) => ({ id: t.id, direction: t.direction, state: t.state, amount: t.amount, asset: t.asset, network: t.network, protocol: t.protocol, createdAt: t.createdAt })) ?? null,
          cases: cases?.map((x) => ({ id: x.id, caseNumber: x.caseNumber, type: x.type, status: x.status, resolution: x.resolution, priority: x.priority, transferIds: x.transferIds, createdAt: x.createdAt })) ?? null,
        });
      },
    ),
  );
}
