// provider_a webhook events (Part 3 "provider_a callback"): version 1.0.0, a payload for the environment's entity
// naming a provider transfer ID, and the messages the service acts on. Pure.

export type EventRead =
  /** Not a provider event, or for another entity: `path` names the field that failed (never a value). */
  | { kind: "invalid"; path: string }
  | { kind: "ignored"; message: string }
  | { kind: "transfer"; message: string; providerTransferId: string };

/** Messages acted on: they start with one of these. */
export const ACTED_ON = ["notification.transfer", "tap.require"] as const;

export function readEvent(v: unknown, vaspDid: string): EventRead {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { kind: "invalid", path: "(body)" };
  const e = v as Record<string, unknown>;
  if (e.version !== "1.0.0") return { kind: "invalid", path: "version" };
  if (typeof e.message !== "string") return { kind: "invalid", path: "message" };
  const p = e.payload;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return { kind: "invalid", path: "payload" };
  const payload = p as Record<string, unknown>;
  if (payload.for !== vaspDid) return { kind: "invalid", path: "payload.for" };
  if (typeof payload.id !== "string" || payload.id.length === 0 || payload.id.length > 255 || !/^[\x21-\x7e]+$/.test(payload.id)) return { kind: "invalid", path: "payload.id" };
  if (!ACTED_ON.some((m) => e.message === m || (e.message as string).startsWith(m))) return { kind: "ignored", message: e.message };
  return { kind: "transfer", message: e.message, providerTransferId: payload.id };
}
