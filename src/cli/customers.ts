// CLI for customer records the dashboard manages: legal holds (erasure is refused while one is set).
import { parseArgs } from "node:util";
import type { Storage } from "../adapters/storage/index.ts";
import { TenancyError } from "../ports/tenancy.ts";
import { cliRepositories } from "./repositories.ts";
import { iso } from "../domain/ids.ts";
import { UsageError } from "./usage.ts";

export async function runCustomers(storage: Storage, argv: string[], out: (line: string) => void, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== "hold") throw new UsageError("usage: customers hold --id <customerId> [--release] [--company <slug>] [--json]");
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({ args: rest, options: { id: { type: "string" }, release: { type: "boolean" }, company: { type: "string" }, json: { type: "boolean" } }, strict: true }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (typeof v.id !== "string") throw new UsageError("--id is required");
  const repositories = cliRepositories(storage, clock);
  const company = await repositories.tenancy.requireCompany((v.company as string) ?? "default");
  const found = await repositories.customers.holdState(company.id, v.id);
  if (!found) throw new TenancyError(`no customer with id ${v.id}`);
  const hold = !v.release;
  const now = clock();
  await storage.transaction(async () => {
    await repositories.customers.setLegalHold(found.id, hold, iso(now));
    await repositories.audit.record(
      { companyId: company.id, environment: found.environment, actor: { type: "system" }, action: hold ? "customer.legal_hold_set" : "customer.legal_hold_released", entityType: "Customer", entityId: found.id },
      now,
    );
  });
  const result = { id: found.id, environment: found.environment, legalHold: hold };
  out(v.json ? JSON.stringify(result) : `Customer ${found.id}: legal hold ${hold ? "set" : "released"}`);
}
