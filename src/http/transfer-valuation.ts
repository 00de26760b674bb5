// GET /api/v2/transfers/:id/valuation (Caravan's operator route, for the console's evidence): the value in fiat that
// the threshold decision used, read from the valuation recorded at creation (the transfer's fxRateId), and that
// decision (threshold, its currency, jurisdiction, regulation). The transfer's own fields stay as Part 1 gives them.
import { apiError } from "../domain/errors.ts";
import type { Repositories } from "../ports/repositories.ts";
import { ok, type ApiKit } from "./kit.ts";

const ID = /^trf_[0-9a-z]{26}$/;
const text = (v: unknown): string | null => (typeof v === "string" || typeof v === "number" ? String(v) : null);

export function transferValuationRoutes(kit: ApiKit, deps: { repositories: Pick<Repositories, "transfers" | "fxValuations"> }) {
  return kit.group("/api/v2/transfers", (r) =>
    r.get(
      "/:id/valuation",
      { summary: "Operator: the value in fiat the threshold decision used (amount, currency, rate, source, time)", access: { scope: "transfers:read", permission: "transfers:view" }, tags: ["transfers", "operator"], readOnly: true },
      async (c) => {
        const { company, environment } = c.auth;
        const id = c.params.id;
        const t = ID.test(id) ? await deps.repositories.transfers.get(company.id, environment, id) : undefined;
        if (!t) throw apiError("TRANSFER_NOT_FOUND", { details: { resource: "Transfer", id } });
        const v = t.fxRateId ? await deps.repositories.fxValuations.get(company.id, environment, t.fxRateId) : undefined;
        const info = t.thresholdInfo;
        return ok({
          transferId: t.id,
          amount: t.amount,
          asset: t.asset,
          valuation: v ? { fxRateId: v.fxRateId, value: v.value, currency: v.currency, rate: v.rate, source: v.source, rateAsOf: v.asOf, valuedAt: v.createdAt } : null,
          threshold: info
            ? { amount: text(info.threshold), currency: text(info.thresholdCurrency), jurisdiction: text(info.jurisdiction), regulation: text(info.regulation) }
            : null,
        });
      },
    ),
  );
}
