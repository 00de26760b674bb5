// provider_a webhook events (Part 3 "provider_a callback"): version 1.0.0, a payload for the environment's entity
// naming a provider transfer ID, and the messages the service acts on. Pure.

export type EventRead =
  | { kind: "invalid" }
  | { kind: "ignored"; message: string }
  | { kind: "transfer"; message: string; providerTransferId: string };

/** Messages acted on: they start with one of these. */
export const ACTED_ON = ["notification.transfer", "tap.require"] as const;

export function readEvent(v: unknown, vaspDid: string): EventRead {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { kind: "invalid" };
  const e = v as Record<string, unknown>;
  if (e.version !== "1.0.0" || typeof e.message !== "string") return { kind: "invalid" };
  const p = e.payload;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return { kind: "invalid" };
  const payload = p as Record<string, unknown>;
  if (payload.for !== vaspDid) return { kind: "invalid" };
  if (typeof payload.id !== "string" || payload.id.length === 0 || payload.id.length > 255 || !/^[\x21-\x7e]+$/.test(payload.id)) return { kind: "invalid" };
  if (!ACTED_ON.some((m) => e.message === m || (e.message as string).startsWith(m))) return { kind: "ignored", message: e.message };
  return { kind: "transfer", message: e.message, providerTransferId: payload.id };
}
