// CLI for customer records the dashboard manages: legal holds (erasure is refused while one is set).
import { parseArgs } from "node:util";
import { TenancyError } from "../ports/tenancy.ts";
import process from "node:process";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import type { CliContext } from "./context.ts";
import { UsageError } from "./usage.ts";

export async function runCustomers(cli: CliContext, argv: string[], out: (line: string) => void, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== "hold") throw new UsageError("usage: customers hold --id <customerId> [--release] [--company <slug>] [--json]");
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({ args: rest, options: { id: { type: "string" }, release: { type: "boolean" }, company: { type: "string" }, json: { type: "boolean" } }, strict: true }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (typeof v.id !== "string") throw new UsageError("--id is required");
  const repositories = cli.repositories(clock);
  const company = await repositories.tenancy.requireCompany((v.company as string) ?? "default");
  const found = await repositories.customers.holdState(company.id, v.id);
  if (!found) throw new TenancyError(`no customer with id ${v.id}`);
  const hold = !v.release;
  // The customer's actor, the one writer of the customer (src/cli/runtime.ts), sets or releases the hold and audits it
  // in one transaction; the CLI has no logged-in user, so the system acts.
  const runtime = cli.runtime({ clock, repositories, masterKey: () => loadMasterKey(cli.path, process.env) });
  const o = await runtime.customerCommand<{ id: string; environment: string; legalHold: boolean }>(found.id, {
    type: "setLegalHold",
    hold,
    companyId: company.id,
    environment: found.environment,
    actor: { type: "system" },
  });
  if (!o.ok) throw new TenancyError(o.code === "CUSTOMER_NOT_FOUND" ? `no customer with id ${v.id}` : (o.message ?? o.code));
  const result = { id: found.id, environment: found.environment, legalHold: hold };
  out(v.json ? JSON.stringify(result) : `Customer ${found.id}: legal hold ${hold ? "set" : "released"}`);
}
