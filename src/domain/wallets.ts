// Wallet rules without I/O: the canonical stored form of an address with its destination tag, body checks.
import { isSupportedNetwork, validateDestination, type Network } from "./networks/index.ts";
import type { Issue } from "./errors.ts";

/** `r…?dt=12`: XRP's `tag` and `dt` are one thing, so both are stored as `dt`; memos are percent-encoded. */
export function canonicalAddress(network: Network, input: string): { ok: true; address: string } | { ok: false; reason: string } {
  const v = validateDestination(network, input);
  if (!v.ok) return v;
  if (v.tag === null || v.tagKey === null) return { ok: true, address: v.address };
  const key = network === "ripple" ? "dt" : v.tagKey;
  return { ok: true, address: `${v.address}?${key}=${encodeURIComponent(v.tag)}` };
}

/** Every stored form an address could have, whatever network it was registered on (for lookups without a network). */
export function addressCandidates(input: string, networks: readonly Network[]): string[] {
  const out = new Set<string>([input.trim()]);
  for (const n of networks) {
    const c = canonicalAddress(n, input);
    if (c.ok) out.add(c.address);
  }
  return [...out];
}

export type WalletCreate = { address: string; network: Network; customerId: string; label: string | null };

/** POST /api/v2/wallets checks in the spec's order: MISSING_FIELDS, INVALID_FIELDS, UNSUPPORTED_NETWORK, INVALID_ADDRESS. */
export function checkWalletCreate(
  body: unknown,
):
  | { ok: true; value: WalletCreate }
  | { ok: false; code: "VALIDATION_ERROR" | "MISSING_FIELDS" | "INVALID_FIELDS" | "UNSUPPORTED_NETWORK" | "INVALID_ADDRESS"; message: string; details?: Record<string, unknown> } {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return { ok: false, code: "VALIDATION_ERROR", message: "The body must be a JSON object", details: { issues: [{ path: "", message: "must be a JSON object" }] } };
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !["address", "network", "customerId", "label"].includes(k));
  if (unknown.length)
    return { ok: false, code: "VALIDATION_ERROR", message: `Unknown fields: ${unknown.join(", ")}`, details: { issues: unknown.map((k): Issue => ({ path: k, message: "is not an accepted field" })) } };
  const missing = ["address", "network", "customerId"].filter((k) => b[k] === undefined || b[k] === null);
  if (missing.length) return { ok: false, code: "MISSING_FIELDS", message: `Missing fields: ${missing.join(", ")}`, details: { fields: missing } };
  const invalid: string[] = [];
  if (typeof b.customerId !== "string") invalid.push("customerId");
  if (b.label !== undefined && b.label !== null && typeof b.label !== "string") invalid.push("label");
  if (invalid.length) return { ok: false, code: "INVALID_FIELDS", message: `Invalid fields: ${invalid.join(", ")}`, details: { fields: invalid } };
  if (typeof b.network !== "string" || !isSupportedNetwork(b.network))
    return { ok: false, code: "UNSUPPORTED_NETWORK", message: `Network ${JSON.stringify(b.network)} is not supported`, details: { network: b.network } };
  if (typeof b.address !== "string") return { ok: false, code: "INVALID_ADDRESS", message: "The address must be text in the network's format" };
  const c = canonicalAddress(b.network, b.address);
  if (!c.ok) return { ok: false, code: "INVALID_ADDRESS", message: c.reason };
  return { ok: true, value: { address: c.address, network: b.network, customerId: b.customerId as string, label: (b.label as string | null | undefined) ?? null } };
}
