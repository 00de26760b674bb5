// provider_d's connection test: the saved settings read as the exchange reads them (certificate and key belong
// together and are valid now, CAs parse, counterparties are well formed), then each known counterparty's `/version`
// asked over mutual TLS. Success needs every counterparty to answer a TRP 3.x version.
import { randomUUID } from "node:crypto";
import type { ExchangeFetch } from "../../net/exchange.ts";
import { readProviderDConfig } from "../../../domain/provider_d/settings.ts";
import { acceptsApiVersion, readVersion } from "../../../domain/provider_d/wire.ts";
import { mapped, trpCall } from "./client.ts";
import type { TestOutcome } from "../tester.ts";

/** At most this many counterparties are asked per test (the rest are reported as not asked). */
export const TEST_MAX_COUNTERPARTIES = 20;

export async function providerDConnectionTest(credentials: Readonly<Record<string, string>>, fetch: ExchangeFetch, now: number): Promise<TestOutcome> {
  const read = readProviderDConfig(credentials, now);
  if (!read.ok) return { success: false, message: `provider_d settings are not usable (${read.issues.map((i) => i.path.replace(/^credentials\./, "")).join(", ")})`, error: "INVALID_CONFIGURATION" };
  const { config } = read;
  if (config.counterparties.length === 0) return { success: true, message: "provider_d settings are valid; no counterparty is configured to reach" };
  const failed: string[] = [];
  const asked = config.counterparties.slice(0, TEST_MAX_COUNTERPARTIES);
  for (const c of asked) {
    const r = await trpCall(fetch, config, { method: "GET", url: `${c.endpoint}/version`, requestId: randomUUID() });
    if (!r.ok) {
      failed.push(`${c.name}: ${mapped(r)}`);
      continue;
    }
    const v = readVersion(r.body);
    if (!v.ok || !acceptsApiVersion(v.value.version)) failed.push(`${c.name}: UNSUPPORTED_VERSION`);
  }
  const more = config.counterparties.length > asked.length ? `; ${config.counterparties.length - asked.length} not asked` : "";
  if (failed.length) return { success: false, message: `provider_d request failed for ${failed.length} of ${asked.length} counterparties (${failed.join("; ")})${more}`, error: failed.length === asked.length ? "COUNTERPARTY_UNREACHABLE" : "SOME_COUNTERPARTIES_UNREACHABLE" };
  return { success: true, message: `provider_d reached ${asked.length} counterpart${asked.length === 1 ? "y" : "ies"} over mutual TLS${more}` };
}
