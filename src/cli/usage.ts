// How the CLI reads its options, and a mistake in how it was called: printed as one line with the usage.
import { parseArgs, type ParseArgsConfig } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
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
