// How the CLI reads its options, and a mistake in how it was called: printed as one line with the usage.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { TenancyError, type Member, type TenancyRepository } from "../ports/tenancy.ts";
import { roleAllowsEnvironment, roleHas, type Permission } from "../domain/access.ts";
import type { Environment } from "../domain/types.ts";

import { UsageError } from "../api/usage.ts";

// One class for the CLI and the console (which imports only the API contract), so `main` catches both alike.
export { UsageError };

/** A command that cannot do what was asked for a reason the operator must fix (a key missing, a failed check): one line, exit 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

export type CliValues = Record<string, string | boolean | string[] | undefined>;

/** A subcommand's options, plus `--json` and `--company` that every command takes; a mistake is a UsageError. */
export function parseOptions(argv: string[], options: NonNullable<ParseArgsConfig["options"]>, usage?: string): CliValues {
  try {
    return parseArgs({ args: argv, options: { ...options, json: { type: "boolean" }, company: { type: "string" } }, strict: true, allowPositionals: false }).values as CliValues;
  } catch (e) {
    throw new UsageError(usage ? `${(e as Error).message}\n${usage}` : (e as Error).message);
  }
}

/** A required text option: missing or blank is a UsageError naming it. */
export function need(v: CliValues, name: string, usage?: string): string {
  const x = v[name];
  if (typeof x !== "string" || x.trim() === "") throw new UsageError(usage ? `--${name} is required\n${usage}` : `--${name} is required`);
  return x;
}

/**
 * The CLI has no logged-in user: the member named by `--member` acts, if known, active, holding every permission in
 * `needs` (`lacking` words the refusal) and allowed to act in the environment.
 */
export async function actingMember(
  t: TenancyRepository,
  companyId: string,
  email: string,
  env: Environment,
  needs: readonly Permission[],
  lacking: (m: Member, p: Permission) => string = (m, p) => `member ${m.email} has role ${m.role}, which lacks ${p}`,
): Promise<Member> {
  const m = await t.memberByEmail(companyId, email);
  if (!m) throw new TenancyError(`no member with email ${email}`);
  if (m.status !== "active") throw new TenancyError(`member ${m.email} is disabled`);
  for (const p of needs) if (!roleHas(m.role, p)) throw new TenancyError(lacking(m, p));
  if (!roleAllowsEnvironment(m.role, env)) throw new TenancyError(`member ${m.email} has role ${m.role}, which may not act in the ${env} environment`);
  return m;
}
