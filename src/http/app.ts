// The Elysia application: general rules before routing (NUL, OPTIONS, HEAD), 404/405, and every route group.
import { Elysia } from "elysia";
import { apiError } from "../domain/errors.ts";
import type { Services } from "../services.ts";
import { ApiKit, json } from "./kit.ts";
import { checkCsrf } from "./auth.ts";
import { checkDeclaredLength } from "./body.ts";
import { auditRoutes } from "./audit.ts";
import { assetRoutes } from "./assets.ts";
import { customerRoutes } from "./customers.ts";
import { walletRoutes } from "./wallets.ts";
import { vaspRoutes } from "./vasps.ts";
import { transferRoutes } from "./transfers.ts";
import { applicableThreshold } from "../adapters/storage/repos/thresholds.ts";
import { FxError } from "../adapters/fx/index.ts";
import { thresholdRoutes } from "./thresholds.ts";
import { ruleRoutes } from "./rules.ts";
import { providerRoutes } from "./providers.ts";
import { webhookRoutes } from "./webhooks.ts";
import { caseRoutes } from "./cases.ts";
import { reportRoutes } from "./reports.ts";
import { customerOverviewRoutes } from "./customer-overview.ts";
import { openApiDocument } from "./openapi.ts";
import { eventRoutes } from "./events.ts";
import { meRoutes } from "./me.ts";
import { PROVIDER_B_CALLBACKS } from "../domain/provider_b/endpoints.ts";
import { providerBCallbacks, trpNotFound } from "./callbacks/provider_b.ts";
import { providerECallbacks } from "./callbacks/provider_e.ts";
import { informationRequestRoutes } from "./information-requests.ts";
import type { ProviderEOptions } from "../adapters/providers/provider_e/adapter.ts";
import { providerACallbacks } from "./callbacks/provider_a.ts";

/** Provider callbacks (Part 3): their own checks, limits and error bodies, none of the API's general rules. */
const isCallbackPath = (pathname: string) => pathname === "/api/system/trp" || pathname.startsWith("/api/system/trp/");

export function createApp(services: Services) {
  const kit = new ApiKit({
    tenancy: services.tenancy,
    limiter: services.limiter,
    clock: services.clock,
    log: services.log,
    appDomain: services.config.appDomain,
    storage: services.storage,
  });

  const app = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      const url = new URL(request.url);
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
        if (isCallbackPath(new URL(request.url).pathname)) return trpNotFound();
        const allow = kit.allowedMethods(new URL(request.url).pathname);
        if (allow.length > 0)
          return kit.errorResponse(apiError("METHOD_NOT_ALLOWED", { message: `Method ${request.method} is not allowed here`, headers: { Allow: allow.join(", ") } }));
        return kit.errorResponse(apiError("NOT_FOUND"));
      }
      return kit.errorResponse(error);
    })
    .get("/healthz", () => {
      if (!services.ready()) return json(503, { status: "starting" });
      return json(200, { status: "ok" });
    })
    .use(meRoutes(kit))
    .use(auditRoutes(kit, services.audit, services.cursorKey))
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
    .use(providerRoutes(kit, services))
    .use(providerBCallbacks(services))
    .use(providerECallbacks(services, () => (services.providers.adapter("provider_e") as { options?: ProviderEOptions } | undefined)?.options ?? null))
    .use(providerACallbacks(services))
    .use(informationRequestRoutes(kit, services))
    .use(eventRoutes(kit, services))
    .use(
      transferRoutes(kit, {
        ...services,
        threshold: (companyId, now) => applicableThreshold(services.storage, companyId, { type: "tr", now }).threshold,
        price: async (p) => {
          const asset = services.catalog.assets.find((a) => a.id === p.assetId)!;
          return services.pricing.value({ ...p, asset });
        },
        isPricingFailure: (e) => e instanceof FxError,
      }),
    );

  kit.register("GET", "/api/v2/openapi.json", { summary: "This API's OpenAPI 3.1 description (no key needed)", tags: ["meta"] } as never);
  const doc = openApiDocument(kit, [
    { method: "GET", path: "/healthz", summary: "200 {status: ok} once migrations are applied and the actors run", tags: ["meta"], authentication: "none" },
    {
      method: "POST",
      path: "/api/system/trp/provider_a/{environment}/{providerId}",
      summary: "provider_a callback: webhook events (read back from the provider, recorded as processed after success)",
      tags: ["callbacks"],
      authentication: "Standard Webhooks signature with webhookSecret, timestamp within five minutes (Part 3, Authentication 2)",
    },
    ...PROVIDER_B_CALLBACKS.map((c) => ({
      method: c.method,
      path: `/api/system/trp/provider_b/{environment}/connections/{providerId}/${c.path}`,
      summary: `provider_b callback: ${c.label}`,
      tags: ["callbacks"],
      authentication: "source address (PROVIDER_B_ALLOWED_IPS), sender headers, crypto_box payloads (Part 3, Authentication 3)",
    })),
  ]);
  app.get("/api/v2/openapi.json", () => json(200, doc));
  return app;
}

export type App = ReturnType<typeof createApp>;
