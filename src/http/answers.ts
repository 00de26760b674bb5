// What a route answers: its success statuses (the contract's table) and its refusals per status, the pipeline's own
// derived from the route's declaration (access, query, body, budget) and the route's own from the contract's refusal
// table. The OpenAPI document prints this; the kit logs a warning when a route answers something it does not list.
import type { TSchema } from "@sinclair/typebox";
import { ROUTES, ROUTE_REFUSALS } from "../api/index.ts";
import { ERRORS, type ErrorCode } from "../domain/errors.ts";
import { requirementsOf, type Access } from "./auth.ts";

/** What of a route's declaration (the kit's RouteSpec) decides its answers. */
export interface AnswerSpec {
  access?: Access;
  query?: Record<string, unknown>;
  body?: unknown;
  /** The route's own body reader (its refusals are the route's, listed in the contract's refusal table). */
  read?: unknown;
  validationStatus?: number;
  rateLimit?: string;
  /** A route outside the credential pipeline (signing in): how it is authenticated instead. */
  "x-authentication"?: string;
}

export interface Success {
  description: string;
  /** The whole answer (envelope included) when the contract names it. */
  answer?: TSchema;
}

export interface RouteAnswers {
  successes: Map<number, Success>;
  /** Status → codes, each code once, in the order they are listed. */
  refusals: Map<number, ErrorCode[]>;
  /** Statuses at which the route may also pass on a provider's own code (not in the catalogue). */
  providerCodes: Set<number>;
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** The codes an access declaration can refuse with (each `anyOf` entry's). */
function accessRefusals(access: Access | undefined): ErrorCode[] {
  if (!access || "anyValidKey" in access) return [];
  const entries = "anyOf" in access ? access.anyOf : [access];
  return entries.flatMap((e) => [...requirementsOf(e).map((r) => r.code), ...(e.conditional ?? []).map(() => "INSUFFICIENT_PERMISSION" as const)]);
}

/** What the route answers; `route` is "METHOD /path" as registered (`:id` parameters). */
export function routeAnswers(method: string, path: string, spec: AnswerSpec): RouteAnswers {
  const route = `${method} ${path}`;
  const contract = ROUTES[route];
  const successes = new Map<number, Success>();
  successes.set(contract?.status ?? 200, { description: "Success", answer: contract?.answer });
  for (const [status, s] of Object.entries(contract?.answers ?? {})) successes.set(Number(status), s);

  const refusals = new Map<number, ErrorCode[]>();
  const providerCodes = new Set<number>();
  const add = (code: ErrorCode, status: number = ERRORS[code].status) => {
    const list = refusals.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    refusals.set(status, list);
  };
  const validationStatus = spec.validationStatus ?? 400;
  // Before routing (every route): NUL in path or query, an unreadable Host header.
  add("VALIDATION_ERROR");
  // A route without a credential (signing in, ApiKit.runPublic): readiness, company, company budget, body, its own.
  if (!spec.access && spec["x-authentication"]) {
    for (const code of ["NOT_FOUND", "COMPANY_NOT_READY", "RATE_LIMITED", "BODY_TOO_LARGE", "INVALID_JSON"] as const) add(code);
    if (spec.body) add("VALIDATION_ERROR", validationStatus);
    for (const r of ROUTE_REFUSALS[route] ?? []) if (typeof r === "string") add(r);
    add("INTERNAL_ERROR");
    return { successes, refusals, providerCodes };
  }
  // A route without an access declaration does not run the pipeline (the OpenAPI document itself): nothing more.
  if (!spec.access) return { successes, refusals, providerCodes };
  // A host that names no company.
  add("NOT_FOUND");
  if (MUTATING.has(method)) add("CSRF_VALIDATION_FAILED");
  if (WITH_BODY.has(method)) add("BODY_TOO_LARGE");
  add("COMPANY_NOT_READY");
  if (spec.access) {
    // A key (x-api-key) or a member's console session (Authorization: Bearer), which every route accepts.
    for (const code of ["MISSING_KEY", "INVALID_FORMAT", "KEY_NOT_FOUND", "KEY_REVOKED", "SESSION_ENDED", "TENANT_SUSPENDED", "RATE_LIMITED"] as const) add(code);
    for (const code of accessRefusals(spec.access)) add(code);
  }
  // Only the route's parameters, each readable (a route without parameters refuses any).
  add("INVALID_QUERY");
  if (spec.query && "cursor" in spec.query) add("INVALID_CURSOR");
  if (WITH_BODY.has(method)) {
    add("INVALID_JSON");
    if (spec.body && !spec.read) add("VALIDATION_ERROR", validationStatus);
  }
  if (spec.rateLimit) add("RATE_LIMITED");
  for (const r of ROUTE_REFUSALS[route] ?? []) {
    if (typeof r === "string") add(r, r === "VALIDATION_ERROR" ? validationStatus : ERRORS[r].status);
    else if ("provider" in r) for (const status of r.provider) providerCodes.add(status);
    else add(r[0], r[1]);
  }
  add("INTERNAL_ERROR");
  for (const status of providerCodes) if (!refusals.has(status)) refusals.set(status, []);
  return { successes, refusals, providerCodes };
}
