// Callbacks of the providers Caravan cannot carry transfers for yet (provider_c): their `callbackPaths` are
// listed once the provider is saved, so a provider calling one gets a stated refusal, not a bare 404. Nothing in the
// request is read or kept.
import { Elysia } from "elysia";
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { IntakeDeps } from "./intake.ts";
import { PROVIDERS, type ProviderName } from "../../domain/providers/catalog.ts";
import { json } from "../kit.ts";
import { resolveCompany } from "../auth.ts";
import { trpNotFound } from "./provider_b.ts";

export interface NotCarried {
  provider: ProviderName;
  method: "GET" | "POST" | "PUT";
  /** The OpenAPI form of the path (`{environment}`, `{providerId}`). */
  template: string;
  label: string;
}

/** The providers without a transfer flow in this version. */
const NOT_CARRIED_PROVIDERS: readonly ProviderName[] = ["provider_c"];

export const NOT_CARRIED: readonly NotCarried[] = PROVIDERS.filter((p) => NOT_CARRIED_PROVIDERS.includes(p.name)).flatMap((p) =>
  p.callbackPaths.map((c) => ({ provider: p.name, method: c.method, template: c.path, label: c.label })),
);

/** The refusal's body: `503 { error: Provider unavailable, code: PROVIDER_NOT_SUPPORTED, message }`, no Retry-After. */
export function notCarriedRefusal(provider: ProviderName): Response {
  return json(503, { error: "Provider unavailable", code: "PROVIDER_NOT_SUPPORTED", message: `Caravan cannot carry ${provider} transfers yet: this callback is not processed` });
}

export function notCarriedCallbacks(services: Pick<IntakeDeps, "tenancy" | "config"> & { readonly providerSettings: ProviderSettingsRepository }) {
  const app = new Elysia({ name: "not-carried-callbacks", normalize: false });
  for (const c of NOT_CARRIED) {
    const route = c.template.replace("{environment}", ":environment").replace("{providerId}", ":providerId");
    app.route(
      c.method,
      route,
      (async ({ request, params }: { request: Request; params: Record<string, string> }) => {
        // Only the paths `callbackPaths` lists for the company: another environment or provider ID is another path.
        if (params.environment !== "test" && params.environment !== "live") return trpNotFound();
        let companyId: string;
        try {
          companyId = (await resolveCompany(request, services.tenancy, services.config.appDomain)).id;
        } catch {
          return trpNotFound();
        }
        if ((await services.providerSettings.id(companyId, c.provider)) !== params.providerId) return trpNotFound();
        return notCarriedRefusal(c.provider);
      }) as never,
      { parse: "none" } as never,
    );
  }
  return app;
}
