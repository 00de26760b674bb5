// The Elysia application: general rules before routing (NUL, OPTIONS, HEAD), 404/405, and every route group.
import { Elysia } from "elysia";
import { apiError } from "../domain/errors.ts";
import { ApiKit, json, STORAGE_RETRY_AFTER_S } from "./kit.ts";
import { checkCsrf } from "./auth.ts";
import { checkDeclaredLength } from "./body.ts";
import { auditRoutes } from "./audit.ts";
import { assetRoutes } from "./assets.ts";
import { customerRoutes, type CustomerRouteDeps } from "./customers.ts";
import { walletRoutes, type WalletRouteDeps } from "./wallets.ts";
import { vaspRoutes, type VaspRouteDeps } from "./vasps.ts";
import { transferRoutes, type TransferRouteDeps } from "./transfers.ts";
import { FxError, type Pricing } from "../adapters/fx/index.ts";
import { thresholdRoutes, type ThresholdRouteDeps } from "./thresholds.ts";
import { ruleRoutes, type RuleRouteDeps } from "./rules.ts";
import { providerRoutes, type ProviderRouteDeps } from "./providers.ts";
import { webhookRoutes, type WebhookRouteDeps } from "./webhooks.ts";
import { caseRoutes, type CaseRouteDeps } from "./cases.ts";
import { reportRoutes, type ReportRouteDeps } from "./reports.ts";
import { openApiDocument, systemRoutes } from "./openapi.ts";
import { notCarriedCallbacks } from "./callbacks/not-carried.ts";
import { providerDCallbacks, type ProviderDCallbackDeps } from "./callbacks/provider_d.ts";
import { customerOverviewRoutes } from "./customer-overview.ts";
import { transferValuationRoutes } from "./transfer-valuation.ts";
import { eventRoutes, type EventRouteDeps } from "./events.ts";
import { meRoutes } from "./me.ts";
import { deadLetterRoutes, type DeadLetterRouteDeps } from "./dead-letters.ts";
import { sessionRoutes } from "./sessions.ts";
import { teamRoutes } from "./team.ts";
import { providerBCallbacks, trpNotFound, type ProviderBCallbackDeps } from "./callbacks/provider_b.ts";
import { providerECallbacks, type ProviderECallbackDeps } from "./callbacks/provider_e.ts";
import { informationRequestRoutes, type InformationRequestDeps } from "./information-requests.ts";
import type { ProviderEOptions } from "../adapters/providers/provider_e/adapter.ts";
import { providerACallbacks, type ProviderACallbackDeps } from "./callbacks/provider_a.ts";
import type { Store } from "../ports/store.ts";
import { ClientAddresses } from "../adapters/net/client-address.ts";

/**
 * What the application needs, which is what its route groups and callbacks need together: each group declares its
 * own narrow part beside its routes and receives only that. The composition root (src/services.ts) provides it.
 */
export type AppDeps = CaseRouteDeps &
  CustomerRouteDeps &
  WalletRouteDeps &
  VaspRouteDeps &
  ThresholdRouteDeps &
  RuleRouteDeps &
  WebhookRouteDeps &
  ReportRouteDeps &
  ProviderRouteDeps &
  InformationRequestDeps &
  EventRouteDeps &
  DeadLetterRouteDeps &
  ProviderACallbackDeps &
  ProviderBCallbackDeps &
  ProviderECallbackDeps &
  ProviderDCallbackDeps &
  Parameters<typeof customerOverviewRoutes>[1] &
  Parameters<typeof transferValuationRoutes>[1] &
  Omit<TransferRouteDeps, "threshold" | "price" | "isPricingFailure" | "pricing"> & {
    /** As the audit routes read them (src/http/audit.ts). */
    readonly audit: Parameters<typeof auditRoutes>[1];
    readonly auditTrees: Parameters<typeof auditRoutes>[3];
    readonly policy: Parameters<typeof assetRoutes>[1]["policy"];
    readonly pricing: Pricing;
    /** For read-only routes: authentication and the handler's reads share one read snapshot. */
    readonly storage: Store;
    readonly config: { readonly appDomain?: string; readonly env?: Record<string, string | undefined> };
    /** Faults outside a handler, logged once per class per interval (the actor runtime's). */
    readonly reportFault?: (msg: string, e: unknown, fields?: Record<string, unknown>) => void;
  };

/** Provider callbacks (Part 3): their own checks, limits and error bodies, none of the API's general rules. */
const isCallbackPath = (pathname: string) => pathname === "/api/system/trp" || pathname.startsWith("/api/system/trp/");

/** The request's URL, or null when its Host header makes none (the runtime then gives a bare path or a broken origin). */
function parseRequestUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** The path of a request URL without parsing its origin: "/a/b" of "http://host/a/b?q" or of "/a/b?q". */
function pathOf(raw: string): string {
  const start = raw.startsWith("/") ? 0 : raw.indexOf("/", raw.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = raw.slice(start).search(/[?#]/);
  return end < 0 ? raw.slice(start) : raw.slice(start, start + end);
}

/** Probes of a store in fault, at most one a second (each is a one-row write). */
const PROBE_EVERY_MS = 1_000;
const lastProbe = new WeakMap<Store, number>();

/**
 * `/healthz` while the store takes no writes (or, over a network, cannot be reached): not ready, with the fault's
 * class and since when. A store in fault is probed (at most once a second), so the answer turns `ok` as soon as a
 * write succeeds again even when nothing else writes meanwhile.
 */
async function storageDown(storage: Store, now: number): Promise<Record<string, unknown> | null> {
  // An engine over a network (PostgreSQL): a connection lost while idle is found by a round trip, not by waiting for
  // the next write to meet it.
  if (!storage.health.unavailable && storage.ping) await storage.ping().catch(() => {});
  if (storage.health.unavailable && now - (lastProbe.get(storage) ?? -Infinity) >= PROBE_EVERY_MS) {
    lastProbe.set(storage, now);
    try {
      await storage.probeWrite(now);
    } catch {
      /* not a store fault: the health stays as it was */
    }
  }
  const f = storage.health.unavailable;
  if (!f) return null;
  return { status: "storage_unavailable", fault: f.class, since: new Date(f.since).toISOString() };
}

export function createApp(services: AppDeps) {
  const clients = ClientAddresses.fromEnv(services.config.env);
  const kit = new ApiKit({
    tenancy: services.tenancy,
    limiter: services.limiter,
    clock: services.clock,
    log: services.log,
    appDomain: services.config.appDomain,
    storage: services.storage,
    ready: services.ready,
    reportFault: services.reportFault,
    sourceOf: (req) => clients.of(req),
  });

  const team = teamRoutes(kit, services);
  const app = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      const url = parseRequestUrl(request.url);
      // A Host header that makes no URL (spaces, "[::1", an empty one) is the client's fault: 400, nothing logged.
      if (!url) {
        if (isCallbackPath(pathOf(request.url))) return trpNotFound();
        return kit.errorResponse(apiError("VALIDATION_ERROR", { message: "The Host header is not a valid host name" }));
      }
      if (isCallbackPath(url.pathname)) return;
      // Part 1, Errors: text with a NUL character in path or query is a VALIDATION_ERROR.
      if (/%00/i.test(url.pathname + url.search) || (url.pathname + url.search).includes("\u0000"))
        return kit.errorResponse(apiError("VALIDATION_ERROR", { message: "The path or query contains a NUL character (U+0000)" }));
      // The cheapest refusals come before routing: a declared body over 64 KiB, a dashboard cookie on a change.
      try {
        checkDeclaredLength(request);
        checkCsrf(request);
      } catch (e) {
        return kit.errorResponse(e);
      }
      if (request.method === "OPTIONS" || request.method === "HEAD") {
        const allow = kit.allowedMethods(url.pathname);
        if (allow.length === 0) return kit.errorResponse(apiError("NOT_FOUND"));
        if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: { Allow: allow.join(", ") } });
        return kit.errorResponse(apiError("METHOD_NOT_ALLOWED", { headers: { Allow: allow.join(", ") } }));
      }
    })
    .onError(({ code, request, error }) => {
      if (code === "NOT_FOUND") {
        const pathname = pathOf(request.url);
        if (isCallbackPath(pathname)) return trpNotFound();
        const allow = kit.allowedMethods(pathname);
        if (allow.length > 0)
          return kit.errorResponse(apiError("METHOD_NOT_ALLOWED", { message: `Method ${request.method} is not allowed here`, headers: { Allow: allow.join(", ") } }));
        return kit.errorResponse(apiError("NOT_FOUND"));
      }
      return kit.errorResponse(error);
    })
    .get("/healthz", async () => {
      // Not ready because the store is in fault (a node that lost its database, whose membership lapsed): that fault.
      const ready = services.ready();
      const down = ready || services.storage.health.unavailable ? await storageDown(services.storage, services.clock()) : null;
      if (down) return json(503, down, { "Retry-After": String(STORAGE_RETRY_AFTER_S) });
      if (!ready) return json(503, { status: "starting" });
      return json(200, { status: "ok" });
    })
    .use(meRoutes(kit))
    .use(sessionRoutes(kit, { tenancy: services.tenancy, secrets: services.secrets, config: services.config }, (req) => clients.of(req)))
    .use(team[0])
    .use(team[1])
    .use(auditRoutes(kit, services.audit, services.cursorKey, services.auditTrees))
    .use(assetRoutes(kit, services))
    .use(customerRoutes(kit, services))
    .use(walletRoutes(kit, services))
    .use(vaspRoutes(kit, services))
    .use(thresholdRoutes(kit, services))
    .use(ruleRoutes(kit, services))
    .use(webhookRoutes(kit, services))
    .use(caseRoutes(kit, services))
    .use(reportRoutes(kit, services))
    .use(customerOverviewRoutes(kit, services))
    .use(transferValuationRoutes(kit, services))
    .use(providerRoutes(kit, services))
    .use(providerBCallbacks(services))
    .use(providerECallbacks(services, () => (services.providers.adapter("provider_e") as { options?: ProviderEOptions } | undefined)?.options ?? null))
    .use(providerACallbacks(services))
    .use(providerDCallbacks(services))
    .use(notCarriedCallbacks(services))
    .use(informationRequestRoutes(kit, services))
    .use(eventRoutes(kit, services))
    .use(deadLetterRoutes(kit, services))
    .use(
      transferRoutes(kit, {
        ...services,
        threshold: async (companyId, now) => (await services.repositories.thresholds.applicable(companyId, { type: "tr", now })).threshold,
        price: async (p) => {
          const asset = services.catalog.assets.find((a) => a.id === p.assetId)!;
          return services.pricing.value({ ...p, asset });
        },
        isPricingFailure: (e) => e instanceof FxError,
      }),
    );

  kit.register("GET", "/api/v2/openapi.json", { summary: "This API's OpenAPI 3.1 description (no key needed)", tags: ["meta"] } as never);
  const doc = openApiDocument(kit, systemRoutes(), { appDomain: services.config.appDomain });
  app.get("/api/v2/openapi.json", () => json(200, doc));
  return app;
}

export type App = ReturnType<typeof createApp>;
