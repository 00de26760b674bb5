// provider_d's TRP client: one request over mutual TLS (our certificate and key; the counterparty's server must chain
// to the accepted CAs) with the protocol's headers, through the SSRF-guarded outbound client and the shared exchange.
import { exchange, type ExchangeFetch, type Exchanged } from "../../net/exchange.ts";
import { HEADER, TRP_API_VERSION } from "../../../domain/provider_d/wire.ts";
import type { ProviderDConfig } from "../../../domain/provider_d/settings.ts";

export const TRP_MAX_BYTES = 256 * 1024;
export const TRP_TIMEOUT_MS = 15_000;

export interface TrpCall {
  method: "GET" | "POST";
  url: string;
  /** Serialized exactly as given (writeInquiry spells the amount); absent for a GET. */
  body?: string;
  requestId: string;
  apiVersion?: string;
  extensions?: string[];
}

export function trpHeaders(call: Pick<TrpCall, "requestId" | "apiVersion" | "extensions">, withBody: boolean): Record<string, string> {
  const h: Record<string, string> = { [HEADER.version]: call.apiVersion ?? TRP_API_VERSION, [HEADER.requestId]: call.requestId };
  if (call.extensions?.length) h[HEADER.extensions] = call.extensions.join(",");
  if (withBody) h["content-type"] = "application/json; charset=utf-8";
  return h;
}

export function trpCall(fetch: ExchangeFetch, config: ProviderDConfig, call: TrpCall): Promise<Exchanged> {
  return exchange(fetch, {
    method: call.method,
    url: call.url,
    headers: trpHeaders(call, call.body !== undefined),
    ...(call.body !== undefined ? { body: call.body } : {}),
    maxBytes: TRP_MAX_BYTES,
    timeoutMs: TRP_TIMEOUT_MS,
    errorBody: true,
    allowEmpty: true,
    clientTls: { cert: config.certificatePem, key: config.privateKeyPem, ca: config.caPems.join("\n") },
  });
}

/** provider_d's codes for the shared failure vocabulary (as provider_a and provider_e name theirs). */
export function mapped(r: Exclude<Exchanged, { ok: true }>): string {
  if (r.failure === "http") return `HTTP_${r.status}`;
  if (r.failure === "not_json" || r.failure === "too_large") return "INVALID_RESPONSE";
  return "TRANSPORT_ERROR";
}
