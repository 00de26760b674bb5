// The one callback intake every provider's callbacks pass: an ordered list of named steps (the source, the size, the
// company, its request budget, the provider, the shape, the signature, the provider's status, the actor), each of
// which either refuses in the provider's own format or lets the callback on. Each provider declares its order, its
// signature check and its refusals; the pieces every provider shares (the environment in the path, the company by
// its host, the company's request budget) are written here once.
import type { Environment } from "../../domain/types.ts";
import { ApiError } from "../../domain/errors.ts";
import type { Company, TenancyRepository } from "../../ports/tenancy.ts";
import type { Logger } from "../../adapters/log.ts";
import type { RateLimiter } from "../ratelimit.ts";
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { ActorRuntime } from "../../actors/runtime.ts";
import type { Catalog } from "../../domain/assets/catalog.ts";

/** What the shared steps need: the companies (by host), the request budget, the log and the app domain. */
export interface IntakeDeps {
  readonly tenancy: TenancyRepository;
  readonly limiter: RateLimiter;
  readonly log: Logger;
  readonly config: { readonly appDomain?: string };
}

/** What a provider's callbacks need besides the intake's: the actors, the asset catalogue, the clock and the provider settings. */
export interface ProviderCallbackDeps extends IntakeDeps {
  readonly runtime: ActorRuntime;
  readonly catalog: Catalog;
  readonly clock: () => number;
  readonly providerSettings: ProviderSettingsRepository;
}
import { json } from "../kit.ts";
import { resolveCompany } from "../auth.ts";

/** The steps a callback passes, by name; each provider lists the ones it takes in its own order. */
export type IntakeStepName = "source" | "size" | "company" | "budget" | "provider" | "shape" | "signature" | "status" | "actor";

/** What every intake knows from the start, and what the company step adds. */
export interface IntakeBase {
  readonly request: Request;
  readonly params: Record<string, string>;
  readonly environment: Environment;
  company?: Company;
}

/** A step refuses with its answer, or returns nothing to let the callback on (filling in what it read). */
export type IntakeStep<C> = (c: C) => Response | null | undefined | Promise<Response | null | undefined>;

export interface Intake<C extends IntakeBase> {
  /** For the log: which provider's callback failed. */
  provider: string;
  /** The steps in order; the last one answers. */
  steps: ReadonlyArray<readonly [IntakeStepName, IntakeStep<C>]>;
  /** An unexpected failure: logged, and answered in the provider's format saying nothing of the cause. */
  failed(c: C): Response;
  /** What the log gets besides the error (the callback's endpoint or event). */
  logDetail?: (c: C) => Record<string, unknown>;
}

/** Part 3, Callback paths: "Any other path under /api/system/trp is 404 { error: Not found, code: NOT_FOUND }", exactly that body. */
export const TRP_NOT_FOUND = { error: "Not found", code: "NOT_FOUND" } as const;
export const trpNotFound = (): Response => json(404, TRP_NOT_FOUND);

/** The names of an intake's steps in order (what the tests pin). */
export const intakeOrder = <C extends IntakeBase>(i: Intake<C>): IntakeStepName[] => i.steps.map(([name]) => name);

/**
 * Runs a callback through its intake. The path's environment is test or live (another value is another path: 404);
 * then each step in order, the first refusal answering.
 */
export async function runIntake<C extends IntakeBase>(services: Pick<IntakeDeps, "log">, intake: Intake<C>, request: Request, params: Record<string, string>, init: (base: IntakeBase) => C): Promise<Response> {
  const environment = params.environment;
  if (environment !== "test" && environment !== "live") return trpNotFound();
  const c = init({ request, params, environment });
  try {
    for (const [, step] of intake.steps) {
      const refused = await step(c);
      if (refused) return refused;
    }
    throw new Error(`${intake.provider} intake ended without an answer`);
  } catch (e) {
    services.log("error", `${intake.provider} callback failed`, { ...intake.logDetail?.(c), error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), stack: e instanceof Error ? e.stack : undefined });
    return intake.failed(c);
  }
}

/** The company step: the company the request's host names, else 404 as for any unknown path. */
export function companyStep<C extends IntakeBase>(services: Pick<IntakeDeps, "tenancy" | "config">): IntakeStep<C> {
  return (c) => {
    try {
      const company = resolveCompany(c.request, services.tenancy, services.config.appDomain);
      if (!(company instanceof Promise)) {
        c.company = company;
        return null;
      }
      return company.then(
        (found) => {
          c.company = found;
          return null;
        },
        () => trpNotFound(),
      );
    } catch {
      return trpNotFound();
    }
  };
}

/**
 * The budget step: a callback counts toward its company's request budget (shared with the API); over it, the
 * provider's 429 built from the limiter's headers.
 */
export function budgetStep<C extends IntakeBase>(services: Pick<IntakeDeps, "limiter">, overBudget: (headers: Record<string, string> | undefined) => Response): IntakeStep<C> {
  return (c) => chargeBudget(services, c.company!.id, overBudget);
}

/** Charges one request to the company's budget: null within it, the provider's 429 over it. */
export function chargeBudget<R>(services: Pick<IntakeDeps, "limiter">, companyId: string, overBudget: (headers: Record<string, string> | undefined) => R): R | null {
  try {
    services.limiter.check("company", companyId);
    return null;
  } catch (e) {
    if (e instanceof ApiError && e.code === "RATE_LIMITED") return overBudget(e.headers);
    throw e;
  }
}
